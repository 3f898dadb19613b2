"""Contamination API: Δ per model (with SE, CI, z, flag, the validation probe rate), a model's Δ history and the
board-wide mean Δ over time. `?format=csv` streams the tables."""
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.core.api import FORMAT_PARAM, BaseApi, Pagination
from leaderboard.core.csv_http import CSVRenderer, streaming_csv
from leaderboard.results.cache import cached_get  # Fisher and Holm once per results generation, not per request
from leaderboard.submissions.selectors import public_model_or_404

from . import selectors
from .serializers import (BoardHistoryPointSerializer, BoardQuerySerializer, DeltaRowSerializer,
                          ModelContaminationSerializer)

BOARD_COLUMNS = ["hub_id", "revision", "precision", "benchmark", "shots", "variant", "validation_accuracy",
                 "validation_n", "test_accuracy", "test_n", "delta", "se", "ci95_low", "ci95_high", "delta0", "z",
                 "flagged", "significant_topics", "probe_validation_rate",
                 "computed_at", "validation_reweighted", "delta_unweighted", "delta0_se", "p_value", "q_value"]
HISTORY_COLUMNS = ["date", "mean_delta", "models"]


def _flat(row):
    probe = row["probe"] or {}
    return {**row, "validation_accuracy": row["validation"]["accuracy"], "validation_n": row["validation"]["n"],
            "test_accuracy": row["test"]["accuracy"], "test_n": row["test"]["n"],
            "significant_topics": ";".join(t["topic_slug"] for t in row["topics"]["significant"]),
            "probe_validation_rate": (probe.get("validation") or {}).get("rate")}


class _Base(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def board_query(self):
        q = self.query()
        benchmark = bench_selectors.benchmark_get(slug=q.pop("benchmark"))
        if benchmark is None:
            raise NotFound("No such benchmark; see /api/v1/benchmarks/ for the slugs.")
        return benchmark, q


class BoardApi(_Base):
    pagination_class = Pagination
    query_serializer = BoardQuerySerializer

    @extend_schema(parameters=[BoardQuerySerializer, FORMAT_PARAM], responses=DeltaRowSerializer(many=True),
                   operation_id="v1_contamination_list")
    @cached_get
    def get(self, request):
        benchmark, q = self.board_query()
        rows = selectors.board(benchmark=benchmark, **q)
        if self.wants_csv():
            return streaming_csv(BOARD_COLUMNS, map(_flat, rows),
                                 f"contamination-{benchmark.slug}-{q['shots']}shot.csv")
        return self.page_response(rows, DeltaRowSerializer)


class BoardHistoryApi(_Base):
    query_serializer = BoardQuerySerializer

    @extend_schema(parameters=[BoardQuerySerializer, FORMAT_PARAM], responses=BoardHistoryPointSerializer(many=True))
    @cached_get
    def get(self, request):
        benchmark, q = self.board_query()
        rows = selectors.board_history(benchmark=benchmark, shots=q["shots"])
        if self.wants_csv():
            return streaming_csv(HISTORY_COLUMNS, rows,
                                 f"contamination-history-{benchmark.slug}-{q['shots']}shot.csv")
        return Response(BoardHistoryPointSerializer(rows, many=True).data)


class ModelContaminationApi(_Base):
    @extend_schema(parameters=[FORMAT_PARAM], responses=ModelContaminationSerializer,
                   description="CSV: the model's latest Δ rows, in the board's columns (the history is JSON only).")
    @cached_get
    def get(self, request, hub_id):
        model = public_model_or_404(hub_id=hub_id)
        data = selectors.model_contamination(hub_id=model.hub_id if model else hub_id)  # the stored spelling
        if model is None and not data["latest"]:
            raise Http404(f"No model {hub_id!r}.")
        if self.wants_csv():
            return streaming_csv(BOARD_COLUMNS, map(_flat, data["latest"]),
                                 f"contamination-{data['hub_id'].replace('/', '__')}.csv")
        return Response(ModelContaminationSerializer(data).data)
