"""Device report endpoints: upload (signed in, throttled per account), the reports, speeds per file and device, and the
per-device board (which files run fastest on a device at a given accuracy). Thin views over services and selectors;
a refusal is answered by the exception handler (core/api.py) as {code, detail, hint, problems}."""
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.boards import device_board
from leaderboard.boards import selectors as board_selectors
from leaderboard.core.api import FORMAT_PARAM, BaseApi, Pagination
from leaderboard.core.csv import flatten
from leaderboard.core.errors import DomainError
from leaderboard.core.csv_http import CSVRenderer, streaming_csv
from leaderboard.core.throttling import PostThrottling
from leaderboard.results.cache import cached_get  # per results generation: intake, hide and accept start a new one
from leaderboard.submissions.serializers import ErrorSerializer

from . import selectors, services, throttles
from .refusals import MALFORMED, ReportRefused
from .serializers import (DeviceBoardQuerySerializer, DeviceBoardRowSerializer, DeviceReportInputSerializer,
                          DeviceReportRowSerializer, DeviceReportSerializer, DeviceReportWithSamplesSerializer,
                          ReportQuerySerializer, SampleSerializer, SpeedQuerySerializer, SpeedRowSerializer)

BODY_FIELDS = ("llama_bench", "device", "sha256", "hub_id")
SPEED_COLUMNS = list(SpeedRowSerializer().fields)
# REPORT_NOT_FOUND for a hidden, off-board or unknown report; an unknown ?format= is DRF's plain 404.
NOT_SHOWN = OpenApiResponse(description="no such report is shown (REPORT_NOT_FOUND), or no such format")


def build_medians_text(builds) -> str:
    """A CSV cell of the per-build medians, newest first: "commit (bN): tg T, pp P tokens/s, K people; ..."."""
    def rate(value):
        return "–" if value is None else f"{value:.1f}"
    return "; ".join(f"{b['build_commit']}" + (f" (b{b['build_number']})" if b["build_number"] else "")
                     + f": tg {rate(b['tg_median'])}, pp {rate(b['pp_median'])} tokens/s, {b['people']} "
                     + ("person" if b["people"] == 1 else "people")
                     for b in builds)


class DeviceReportListCreateApi(PostThrottling, BaseApi):
    throttle_scope = throttles.SCOPE
    throttle_rate_setting = throttles.RATE_SETTING
    throttle_what = "device reports"
    permission_classes = [IsAuthenticatedOrReadOnly]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination
    query_serializer = ReportQuerySerializer

    def get_throttles(self):
        return [*super().get_throttles(), throttles.ClientPostThrottle()]

    def throttled(self, request, wait):
        raise throttles.throttled(wait)

    def initial(self, request, *args, **kwargs):
        if request.method == "POST" and (refusal := services.request_too_large(request.META.get("CONTENT_LENGTH"))):
            raise refusal
        super().initial(request, *args, **kwargs)

    @extend_schema(parameters=[ReportQuerySerializer, FORMAT_PARAM], responses=DeviceReportSerializer(many=True),
                   description="Speed reports measured with llama-bench on people's own devices, newest first "
                               "(hidden reports never, nor those of a file no longer on the board: a hidden run, "
                               "submission or model). Each names the board file it was matched to; its tests "
                               "without their repetitions (samples_url serves those).")
    @cached_get
    def get(self, request):
        reports = selectors.filtered_reports(**self.query())
        if self.wants_csv():
            rows = [flatten(r) for r in DeviceReportRowSerializer(_reports_marked(reports), many=True).data]
            return streaming_csv(list(dict.fromkeys(c for row in rows for c in row)) or ["id"], rows,
                                 "device-reports.csv")
        return self.page_response(selectors.with_tests(reports), DeviceReportSerializer, prepare=_reports_marked)

    @extend_schema(request=DeviceReportInputSerializer,
                   responses={201: DeviceReportSerializer, 400: ErrorSerializer, 413: ErrorSerializer,
                              429: ErrorSerializer},
                   description="Upload llama-bench's JSON (-o json) for a GGUF file on the board, with the device it "
                               "ran on. Matched by sha256 when given, else by file name and llama-bench's model_size; "
                               "refused with a code (REPORT_MALFORMED, REPORT_FIELD_TOO_LONG, REPORT_OUT_OF_BOUNDS, "
                               "REPORT_ABSURD_SPEED, REPORT_MIXED_FILES, NO_MATCHING_FILE, AMBIGUOUS_FILE, "
                               "FILE_MISMATCH; 429 REPORT_NEW_DEVICE_QUOTA, THROTTLED) and nothing stored otherwise.")
    def post(self, request):
        body = request.data
        if not isinstance(body, dict) or set(body) - set(BODY_FIELDS):
            raise ReportRefused(MALFORMED, ["the body must be a JSON object with " + ", ".join(BODY_FIELDS)
                                            + (f", not {sorted(map(str, set(body) - set(BODY_FIELDS)))[:5]}"
                                               if isinstance(body, dict) else "")])
        report = services.report_create(user=request.user, **{name: body.get(name) for name in BODY_FIELDS})
        return Response(DeviceReportWithSamplesSerializer(_reports_marked([report])[0]).data,
                        status=status.HTTP_201_CREATED)


class DeviceReportDetailApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    @extend_schema(parameters=[FORMAT_PARAM], responses={200: DeviceReportSerializer, 404: NOT_SHOWN},
                   description="One report as the list shows it (404 when hidden or its file is off the board).")
    @cached_get
    def get(self, request, pk):
        report = _reports_marked([_report_or_404(pk)])[0]
        if self.wants_csv():
            row = flatten(DeviceReportSerializer(report).data)
            return streaming_csv(list(row), [row], f"device-report-{pk}.csv")
        return Response(DeviceReportSerializer(report).data)


class DeviceReportSamplesApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination

    @extend_schema(parameters=[FORMAT_PARAM], responses=SampleSerializer(many=True),
                   description="A report's repetitions (llama-bench's samples_ts): one row per repetition of each "
                               "test, in test order and then the order they ran, paginated. The only endpoint that "
                               "serves them; lists and pages read the figures intake derived from them.")
    @cached_get
    def get(self, request, pk):
        rows = selectors.report_samples(_report_or_404(pk))
        if self.wants_csv():
            return streaming_csv(list(SampleSerializer().fields), rows, f"device-report-{pk}-samples.csv")
        return self.page_response(rows, SampleSerializer)


def _flag_marks(hub_ids) -> dict:
    """hub id (lower case) -> (flagged, flagged_via), as the boards mark a model's files (issue 38: a flagged model's
    files are marked wherever they are listed; the device board hides them unless asked)."""
    marks = board_selectors.model_flags(hub_ids) if hub_ids else {}
    return {hub_id: (mark["flagged"], mark["flagged_via"]) for hub_id, mark in marks.items()}


def _flags_marked(rows):
    """Speed rows, each with its file's flag (flagged, flagged_via)."""
    marks = _flag_marks({r["hub_id"] for r in rows})
    for row in rows:
        row["flagged"], row["flagged_via"] = marks.get(row["hub_id"].lower(), (False, ""))
    return rows


def _reports_marked(reports):
    """The reports, each with its file's flag (flagged, flagged_via)."""
    reports = list(reports)
    marks = _flag_marks({r.model.hub_id for r in reports})
    for report in reports:
        report.flagged, report.flagged_via = marks.get(report.model.hub_id.lower(), (False, ""))
    return reports


def _report_or_404(pk):
    report = selectors.visible_report(pk)
    if report is None:
        raise DomainError("REPORT_NOT_FOUND", f"no device report {pk} is shown: it may be hidden, or its file is no "
                          "longer on the board", "list the reports shown at /api/v1/device-reports/", 404)
    return report


class DeviceSpeedsApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination
    query_serializer = SpeedQuerySerializer

    @extend_schema(parameters=[SpeedQuerySerializer, FORMAT_PARAM], responses=SpeedRowSerializer(many=True),
                   description="Generation and prompt tokens/s per board file and device: one vote per account "
                               "(the median of its counted reports), confirmed when at least two accounts agree "
                               "within 3x (then the median of the agreeing votes, confirmed_by people) and labelled "
                               "unconfirmed otherwise; spread (lowest, highest vote), outliers left out, llama.cpp "
                               "builds. Measured on people's devices: never mixed into the server's cost profile.")
    @cached_get
    def get(self, request):
        rows = _flags_marked(selectors.speed_rows(selectors.filtered_reports(**self.query())))
        if self.wants_csv():
            return streaming_csv(SPEED_COLUMNS, [flatten({**r, "build_medians": build_medians_text(r["build_medians"])})
                                                 for r in rows], "device-speeds.csv")
        return self.page_response(rows, SpeedRowSerializer)


class DeviceBoardApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination
    query_serializer = DeviceBoardQuerySerializer

    @extend_schema(parameters=[DeviceBoardQuerySerializer, FORMAT_PARAM],
                   responses=DeviceBoardRowSerializer(many=True),
                   description="What runs well on a device: the On-device board's files (open validation split) "
                               "with the generation speed reports measured on the chosen device or RAM size, fastest "
                               "first, those at least min_accuracy accurate, and whether each is on the Pareto "
                               "frontier of accuracy against that speed.")
    @cached_get
    def get(self, request):
        q = self.query()
        board = device_board.board(**q)
        if self.wants_csv():
            return streaming_csv(device_board.COLUMNS, map(flatten, board.rows), "device-board.csv")
        return self.page_response(board.rows, DeviceBoardRowSerializer)
