"""Results API: leaderboard, submitted predictions, a model's results, its history, its on-device variants,
per-topic CSV. `?format=csv` streams CSV.

Reads only the aggregate rows. Sealed (test) figures: overall accuracy to 0.1 point, nothing below. Hub ids in
paths compare case-insensitively. Uploaded predictions appear under submitted predictions only.
"""
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.boards import selectors as boards
from leaderboard.core.api import FORMAT_PARAM, BaseApi, Pagination
from leaderboard.core.csv_http import CSVRenderer, streaming_csv
from leaderboard.evaluations import display
from leaderboard.submissions.selectors import public_model_or_404

from . import csv as results_csv
from . import selectors
from .cache import cached_get
from .lm_eval_json import lm_eval_results
from .query_serializers import LeaderboardQuerySerializer, SubmittedPredictionsQuerySerializer, TopicsQuerySerializer
from .serializers import (HistoryRowSerializer, LeaderboardRowSerializer, LmEvalResultsSerializer,
                          ModelDetailSerializer, OnDeviceRowSerializer, OnDeviceSerializer,
                          SubmittedPredictionRowSerializer)


def _safe_name(hub_id):
    return hub_id.replace("/", "__")


class _Base(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def rows_response(self, rows, *, serializer_class, columns, filename):
        """A board's rows: streamed as CSV when asked for, else one page."""
        if self.wants_csv():
            return streaming_csv(columns, rows, filename)
        return self.page_response(rows, serializer_class)


class LeaderboardApi(_Base):
    pagination_class = Pagination
    query_serializer = LeaderboardQuerySerializer

    @extend_schema(parameters=[LeaderboardQuerySerializer, FORMAT_PARAM],
                   responses=LeaderboardRowSerializer(many=True), operation_id="v1_leaderboard_list")
    @cached_get
    def get(self, request):
        q = self.query()
        benchmark = q.pop("benchmark")
        rows = boards.leaderboard(benchmark=benchmark, models=q.pop("model"), **q)
        if self.wants_csv():
            categories = [] if display.is_sealed(q["split"]) else list(selectors.taxonomy_slugs(benchmark=benchmark))
            columns, flat = results_csv.leaderboard_csv(rows, categories=categories)
            return streaming_csv(columns, flat, f"leaderboard-{benchmark.slug}-{q['split']}-{q['shots']}shot.csv")
        return self.page_response(rows, LeaderboardRowSerializer)


class SubmittedPredictionsApi(_Base):
    """Predictions uploaded by their models' owners and scored here: labelled "submitted predictions", never
    ranked with (or shown as) the measured leaderboard, best first."""

    pagination_class = Pagination
    query_serializer = SubmittedPredictionsQuerySerializer

    @extend_schema(parameters=[SubmittedPredictionsQuerySerializer, FORMAT_PARAM],
                   responses=SubmittedPredictionRowSerializer(many=True),
                   operation_id="v1_leaderboard_submitted_predictions_list")
    @cached_get
    def get(self, request):
        q = self.query()
        benchmark = q.pop("benchmark")
        rows = selectors.submitted_predictions(benchmark=benchmark, **q)
        return self.rows_response(rows, serializer_class=SubmittedPredictionRowSerializer,
                                  columns=list(SubmittedPredictionRowSerializer().fields),
                                  filename=f"submitted-predictions-{benchmark.slug}-{q['split']}.csv")


class ModelDetailApi(_Base):
    @extend_schema(parameters=[FORMAT_PARAM], responses=ModelDetailSerializer)
    @cached_get
    def get(self, request, hub_id):
        model = public_model_or_404(hub_id=hub_id)
        hub_id = model.hub_id if model else hub_id  # the board's spelling
        results = selectors.model_results(hub_id=hub_id)
        if model is None and not results:
            raise Http404(f"No model {hub_id!r}.")
        if self.wants_csv():
            rows = (row for result in results for row in selectors.result_csv_rows(result=result))
            return streaming_csv(results_csv.MODEL_COLUMNS, rows, f"model-{_safe_name(hub_id)}.csv")
        return Response(ModelDetailSerializer({
            "hub_id": hub_id, "params": model.params if model else None,
            "size_class": model.size_class if model else None, "model_type": model.model_type if model else "",
            "license": model.license if model else "", "architecture": model.architecture if model else "",
            "gguf_file": model.gguf_file if model else "", "quantization": model.quantization if model else "",
            "flagged": boards.model_flags([hub_id])[hub_id.lower()]["flagged"], "runs": results}).data)


class ModelHistoryApi(_Base):
    @extend_schema(parameters=[FORMAT_PARAM], responses=HistoryRowSerializer(many=True))
    @cached_get
    def get(self, request, hub_id):
        model = public_model_or_404(hub_id=hub_id)
        hub_id = model.hub_id if model else hub_id
        rows = selectors.model_history(hub_id=hub_id)
        if not rows and model is None:
            raise Http404(f"No model {hub_id!r}.")
        if self.wants_csv():
            return streaming_csv(results_csv.HISTORY_COLUMNS, rows, f"history-{_safe_name(hub_id)}.csv")
        return Response(HistoryRowSerializer(rows, many=True).data)



class ModelOnDeviceApi(_Base):
    """A model's on-device variants: a GGUF model's open-split runs against its base model's 16-bit run, or the GGUF
    files made from a model; each with accuracy, its paired change, flips and mean KL, or why there is no number."""

    @extend_schema(parameters=[FORMAT_PARAM], responses=OnDeviceSerializer)
    @cached_get
    def get(self, request, hub_id):
        model = public_model_or_404(hub_id=hub_id)
        if model is None:
            raise Http404(f"No model {hub_id!r}.")
        report = boards.on_device(hub_id=model.hub_id)  # each file marked with its flag
        if self.wants_csv():
            return streaming_csv(list(OnDeviceRowSerializer().fields), report["rows"],
                                 f"on-device-{_safe_name(model.hub_id)}.csv")
        return Response(OnDeviceSerializer({"hub_id": model.hub_id, **report}).data)

class TopicsCsvApi(_Base):
    renderer_classes = [CSVRenderer, JSONRenderer]
    query_serializer = TopicsQuerySerializer

    @extend_schema(parameters=[TopicsQuerySerializer], responses={(200, "text/csv"): OpenApiTypes.STR})
    @cached_get
    def get(self, request):
        q = self.query()
        benchmark = q.pop("benchmark")
        rows = selectors.topic_table(benchmark=benchmark, models=q.pop("model"), **q)
        return streaming_csv(results_csv.TOPIC_COLUMNS, rows,
                             f"topics-{benchmark.slug}-{q['split']}-{q['shots']}shot.csv")


class RunLmEvalApi(_Base):
    """A run's results in lm-evaluation-harness's results-JSON shape, for comparison with one's own harness runs."""

    renderer_classes = [JSONRenderer]

    @extend_schema(responses=LmEvalResultsSerializer)
    @cached_get
    def get(self, request, run_id):
        result = selectors.result_get(run_id=run_id)
        if result is None:
            raise Http404(f"No published results for run {run_id}.")
        return Response(lm_eval_results(result=result))
