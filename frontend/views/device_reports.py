"""Device speed reports (issue 25): the upload page (signed in; the API's intake and its per-account throttle) and
"what runs well on my phone", the On-device board's files with the speeds measured on one device or RAM size
(payloads/devices.py). A file's own device table is on its model page (model_detail.py)."""
from urllib.parse import urlencode

from django.conf import settings
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.boards import device_board
from leaderboard.core.errors import DomainError
from leaderboard.core.throttling import post_wait
from leaderboard.devices import services, throttles
from leaderboard.devices.device_fields import RAM_GB
from leaderboard.devices.llama_bench import loads
from leaderboard.devices.refusals import MALFORMED, ReportRefused

from ..board_cache import board_cached
from ..device_forms import DeviceReportForm
from ..payloads import devices as payload
from . import common
from .accounts import account_needed, throttled


FORM_ALLOWANCE = 64 * 1024  # bytes of a multipart body beyond the report: boundaries and the device's fields


def _too_large(request):
    length = request.META.get("CONTENT_LENGTH") or "0"
    return services.request_too_large(int(length) - FORM_ALLOWANCE) if length.isdigit() else None


def _bench_json(form):
    """The pasted output, or the uploaded file's (bounded), parsed."""
    upload = form.cleaned_data.get("llama_bench_file")
    if upload is not None:
        if upload.size > settings.DEVICE_REPORT_MAX_BYTES:
            raise services.request_too_large(upload.size)
        return loads(upload.read())
    if not form.cleaned_data["llama_bench"].strip():
        raise ReportRefused(MALFORMED, ["paste llama-bench's output or choose its file"])
    return loads(form.cleaned_data["llama_bench"])


def upload(request):
    if not request.user.is_authenticated:
        return account_needed(request, title="Upload a device report", why=(
            "Reports are owned by the account that uploads them, so that each account's reports can be counted, "
            "limited and, when something is wrong with one, hidden by an admin."))
    if request.method == "POST" and (refusal := _too_large(request)):
        return render(request, "frontend/device_report_upload.html", {"form": DeviceReportForm(), "refusal": refusal},
                      status=413)
    if request.method == "POST":
        waits = [post_wait(request, scope=throttles.SCOPE, rate_setting=throttles.RATE_SETTING),
                 throttles.client_wait(request)]
        if any(w is not None for w in waits):
            return throttled(request, "device-report", max(w for w in waits if w is not None))
    form = DeviceReportForm(request.POST or None, request.FILES or None,
                            initial={k: request.GET.get(k, "")[:300] for k in ("hub_id", "sha256")})
    refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            report = services.report_create(user=request.user, llama_bench=_bench_json(form), device=form.device(),
                                            sha256=form.cleaned_data["sha256"], hub_id=form.cleaned_data["hub_id"])
        except DomainError as exc:
            refusal = exc
        else:
            return redirect(reverse("model-detail", args=[report.model.hub_id]) + "#device-reports")
    return render(request, "frontend/device_report_upload.html", {"form": form, "refusal": refusal},
                  status=refusal.status if refusal else 400 if request.method == "POST" else 200)


def _printable(text: str) -> str:
    """A typed filter without control characters (PostgreSQL refuses a NUL in any text)."""
    return "".join(c for c in text if c.isprintable()).strip()


def _float(request, name, low, high):
    return common.number_from(request, name, valid=lambda v: low <= v <= high,
                              message=f"{name} must be a number from {low:g} to {high:g}.")


def _query_string(query: payload.BoardQuery) -> str:
    return urlencode({k: v for k, v in vars(query).items() if v not in (None, "")})


@gzip_page
def what_runs_well(request):
    benchmark = common.benchmark_from(request)
    query = payload.BoardQuery(benchmark=benchmark.slug, shots=common.shots_from(request),
                               device=_printable(request.GET.get("device", ""))[:110],
                               ram_gb=_float(request, "ram_gb", *RAM_GB),
                               min_accuracy=_float(request, "min_accuracy", 0, 100))
    show_flagged = request.GET.get("flagged") == "show"  # as the boards' pages: flagged files hidden unless asked
    # once per results generation and board state (intake, hide and accept start a new generation)
    board, choices = board_cached(
        f"device-board|{query}|{show_flagged}", benchmark=benchmark, split="validation", shots=query.shots,
        build=lambda: (device_board.board(benchmark=benchmark, shots=query.shots, device=query.device,
                                          ram_gb=query.ram_gb, min_accuracy=query.min_accuracy,
                                          include_flagged=show_flagged), payload.device_choices(query)))
    scope = payload.board_scope(query, {d["key"]: d["name"] for d in choices["devices"]})
    rows = payload.board_rows(board)
    return render(request, "frontend/device_board.html", {
        "query": query, "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(), **choices,
        "shots_options": common.shots_options(benchmark=benchmark, shots=query.shots), "rows": rows,
        "measured": board.measured, "scope": scope, "label": payload.LABEL, "outlier_note": payload.OUTLIER_NOTE,
        "frontier_note": device_board.FRONTIER_NOTE, "feel": payload.feel_notes(rows, one_file=False),
        "csv_url": f"{reverse('api-device-board')}?{_query_string(query)}"
                   + ("&include_flagged=true" if show_flagged else "") + "&format=csv",
        "flagged_hidden": board.flagged_hidden,
        "show_flagged_url": f"{reverse('device-board')}?{_query_string(query)}&flagged=show",
        "data": {"board": payload.board_chart(rows, scope)} if rows else None,
        "summary": payload.board_summary(rows, scope),
        "empty": None if rows else f"Nothing to draw: no file measured on {scope} passes these filters.",
    })
