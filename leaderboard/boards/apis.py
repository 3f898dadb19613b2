"""The mobile-vs-general API: models measured on a Mobile-MMLU board and on a general-knowledge one (MMLU-Pro,
MMLU-CF), paired, with their places, rank change and Spearman's correlation; the paper's Table 2 rows apart.
Figures as the boards publish them (selectors.mobile_vs_general). `?format=csv` on both."""
from drf_spectacular.utils import extend_schema
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.core.api import FORMAT_PARAM, BaseApi, Pagination
from leaderboard.core.csv_http import CSVRenderer, streaming_csv
from leaderboard.results.cache import cached_get

from . import rank_comparison, selectors
from .serializers import (ROW_COLUMNS, MobileVsGeneralQuerySerializer, MobileVsGeneralRowSerializer,
                          MobileVsGeneralRowsQuerySerializer, MobileVsGeneralSummarySerializer)


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
