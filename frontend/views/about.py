"""About / methodology: how models are scored and ranked, the sealed split's rules, the statistics,
the MRScore judge and the papers it builds on."""
from django.shortcuts import render

from leaderboard.contamination.stats import FLAG_Z, HOLM_ALPHA
from leaderboard.results.display import SEALED_BREAKDOWN_NOTE


def about(request):
    return render(request, "frontend/about.html", {"flag_z": FLAG_Z, "holm_alpha": HOLM_ALPHA,
                                                   "sealed_note": SEALED_BREAKDOWN_NOTE})
