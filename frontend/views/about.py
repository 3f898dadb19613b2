"""About / methodology: how models are scored and ranked, the sealed split's rules, the statistics,
the MRScore judge and the papers it builds on."""
from django.conf import settings
from django.shortcuts import render

from leaderboard.benchmarks.sealed_grid import MIN_COUNTS_PER_VALUE
from leaderboard.contamination.stats import FLAG_Z, HOLM_ALPHA
from leaderboard.evaluations.display import SEALED_BREAKDOWN_NOTE


def about(request):
    return render(request, "frontend/about.html", {
        "flag_z": FLAG_Z, "holm_alpha": HOLM_ALPHA, "sealed_note": SEALED_BREAKDOWN_NOTE,
        "grid_min_counts": MIN_COUNTS_PER_VALUE, "ladder_budget": settings.LADDER_RELEASES_PER_WINDOW,
        "ladder_days": settings.LADDER_WINDOW_DAYS})
