"""The mobile-vs-general API: models measured on a Mobile-MMLU board and on a general-knowledge one (MMLU-Pro,
MMLU-CF), paired, with their places, rank change and Spearman's correlation; the paper's Table 2 rows apart.
Figures as the boards publish them (selectors.mobile_vs_general). The On-device board (ondevice.py): a row per GGUF
file of an open board. `?format=csv` on all."""
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.core.api import FORMAT_PARAM, BaseApi, Pagination
from leaderboard.core.csv_http import CSVRenderer, streaming_csv
from leaderboard.results.cache import cached_get

from . import ondevice, rank_comparison, selectors
from .serializers import (ONDEVICE_COLUMNS, ROW_COLUMNS, MobileVsGeneralQuerySerializer,
                          MobileVsGeneralRowSerializer, MobileVsGeneralRowsQuerySerializer,
                          MobileVsGeneralSummarySerializer, OnDeviceBoardQuerySerializer, OnDeviceBoardRowSerializer)


def _view(q):
    return selectors.mobile_vs_general(mobile=q["mobile"], general=q["general"], split=q["split"], shots=q["shots"],
                                       include_flagged=q["include_flagged"])


def _name(q):
    return f"{q['mobile']}-vs-{q['general']}-{q['split']}-{q['shots']}shot"


class MobileVsGeneralApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination
    query_serializer = MobileVsGeneralRowsQuerySerializer

    @extend_schema(parameters=[MobileVsGeneralRowsQuerySerializer, FORMAT_PARAM],
                   responses=MobileVsGeneralRowSerializer(many=True), operation_id="v1_mobile_vs_general_list")
    @cached_get
    def get(self, request):
        q = self.query()
        view = _view(q)
        rows = (rank_comparison.sort_pairs(view["measured"], q["sort"])
                + rank_comparison.sort_pairs(view["paper"], q["sort"]))
        if self.wants_csv():
            return streaming_csv(ROW_COLUMNS, rows, f"{_name(q)}.csv")
        return self.page_response(rows, MobileVsGeneralRowSerializer)


class MobileVsGeneralCorrelationApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    query_serializer = MobileVsGeneralQuerySerializer

    @extend_schema(parameters=[MobileVsGeneralQuerySerializer, FORMAT_PARAM],
                   responses=MobileVsGeneralSummarySerializer, operation_id="v1_mobile_vs_general_correlation")
    @cached_get
    def get(self, request):
        q = self.query()
        view = _view(q)
        summary = {"mobile": q["mobile"], "general": q["general"], "split": q["split"], "shots": q["shots"],
                   "measured": view["correlation"], "paper": view["paper_correlation"],
                   "flagged_hidden": view["flagged_hidden"]}
        if self.wants_csv():
            head = {k: summary[k] for k in ("mobile", "general", "split", "shots")}
            rows = [{"source": source, **head, **summary[key]}
                    for source, key in (("measured", "measured"), (selectors.PAPER_TABLE2, "paper"))]
            return streaming_csv(["source", *head, "rho", "ci95_low", "ci95_high", "n", "method"], rows,
                                 f"{_name(q)}-correlation.csv")
        return Response(MobileVsGeneralSummarySerializer(summary).data)


class OnDeviceBoardApi(BaseApi):
    """The On-device board: one row per GGUF file of a benchmark's open validation split (never the sealed split),
    with its size, sha256, type, accuracy ± CI, change vs the 16-bit model's run, flip rate, mean KL, the cost
    profile's tokens/s, time to first token and peak memory (measured on a server CPU: `profile_label`), and whether
    it is on the Pareto frontier of accuracy against file size and against generation speed. Flagged files (flagged
    themselves or through their base model) are left out unless include_flagged is set."""

    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    pagination_class = Pagination
    query_serializer = OnDeviceBoardQuerySerializer

    @extend_schema(parameters=[OnDeviceBoardQuerySerializer, FORMAT_PARAM],
                   responses=OnDeviceBoardRowSerializer(many=True), operation_id="v1_leaderboard_on_device_list")
    @cached_get
    def get(self, request):
        q = self.query()
        benchmark = q["benchmark"]
        rows = ondevice.ondevice_rows(benchmark=benchmark, shots=q["shots"], version=q["version"])
        present = ondevice.quantizations(rows)
        unknown = [t for t in q["quantization"] if t.upper() not in {p.upper() for p in present}]
        if unknown:
            raise serializers.ValidationError({"quantization": [
                f"no file of type {', '.join(map(repr, unknown))} on {benchmark.slug} validation {q['shots']}-shot; "
                f"allowed values: {', '.join(present) or 'none (no GGUF file on this board yet)'}."]})
        shown = ondevice.view(rows, filters=ondevice.Filters(quantization=tuple(q["quantization"]),
                                                             fits_gb=q.get("fits_gb"),
                                                             flagged=None if q["include_flagged"] else False),
                              search=q["search"], sort=q["sort"])
        if self.wants_csv():
            return streaming_csv(ONDEVICE_COLUMNS, shown.rows, f"on-device-{benchmark.slug}-{q['shots']}shot.csv")
        return self.page_response(shown.rows, OnDeviceBoardRowSerializer)
