"""Results API: leaderboard, submitted predictions, a model's results, its history, per-topic CSV. `?format=csv`
streams CSV.

Reads only the aggregate rows. Sealed (test) figures: overall accuracy to 0.1 point, nothing below. Hub ids in
paths compare case-insensitively. Uploaded predictions appear under submitted predictions only.
"""
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.api_schema import paginated
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.mrscore.renderers import CSVRenderer
from leaderboard.submissions.selectors import model_entry_get

from . import csv as results_csv
from . import display, selectors
from .board import sort_names
from .cache import cached_get
from .lm_eval_json import lm_eval_results
from .serializers import (HistoryRowSerializer, LeaderboardQuerySerializer, LeaderboardRowSerializer,
                          LmEvalResultsSerializer, ModelDetailSerializer, SubmittedPredictionRowSerializer,
                          SubmittedPredictionsQuerySerializer, TopicsQuerySerializer)

FORMAT_PARAM = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"])


def _safe_name(hub_id):
    return hub_id.replace("/", "__")


class _Base(APIView):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def wants_csv(self, request):
        return getattr(getattr(request, "accepted_renderer", None), "format", "") == "csv"

    def handle_exception(self, exc):
        """A 400 in CSV says which parameter and why in plain words (one "detail" cell), as JSON would."""
        response = super().handle_exception(exc)
        if isinstance(exc, ValidationError) and self.wants_csv(self.request) and isinstance(response.data, dict):
            response.data = {"detail": "; ".join(f"{name}: {' '.join(map(str, messages))}"
                                                 for name, messages in response.data.items())}
        return response

    def benchmark(self, slug):
        benchmark = bench_selectors.benchmark_get(slug=slug)
        if benchmark is None:
            raise NotFound(f"No benchmark {slug!r}.")
        return benchmark

    def version(self, benchmark, number):
        version, valid = selectors.version_get(benchmark=benchmark, number=number)
        if version is None and valid is not None:
            listed = ", ".join(map(str, valid)) or "none yet"
            raise ValidationError({"version": [f"{benchmark.slug} has no version {number}; "
                                               f"valid versions: {listed}."]})
        return version

    def board_query(self, request, serializer_class):
        """(benchmark, the other parameters with `version` resolved) from a board's query string."""
        query = serializer_class(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = dict(query.validated_data)
        benchmark = self.benchmark(q.pop("benchmark"))
        q["version"] = self.version(benchmark, q.pop("version", None))
        return benchmark, q

    def rows_response(self, request, rows, *, serializer_class, columns, filename):
        """A board's rows: streamed as CSV when asked for, else one LimitOffsetPagination page."""
        if self.wants_csv(request):
            return results_csv.streaming_csv(columns, rows, filename)
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(serializer_class(page, many=True).data)


def _refuse(name, message):
    raise ValidationError({name: [message]})


def _allowed(name, values, allowed):
    unknown = [v for v in values if v not in allowed]
    if unknown:
        _refuse(name, f"unknown {name} {', '.join(map(repr, unknown))}; allowed values: {', '.join(allowed)}.")


def scope(benchmark, q):
    """The topic slugs that ?topic= and ?category= name (popped from q), checked against the benchmark's taxonomy
    and refused on the sealed split; () when neither is given. ?model= is checked against the board's rows:
    every hub id must name one (any case)."""
    topics, categories, models = q.pop("topic"), q.pop("category"), q["model"]
    if topics or categories:
        if display.is_sealed(q["split"]):
            _refuse("topic" if topics else "category", f"{display.SEALED_BREAKDOWN_NOTE}; use split=validation.")
        taxonomy = selectors.taxonomy_slugs(benchmark=benchmark)
        _allowed("topic", topics, [t for members in taxonomy.values() for t in members])
        _allowed("category", categories, list(taxonomy))
        topics = list(dict.fromkeys(topics + [t for c in categories for t in taxonomy[c]]))
    if models:
        known = selectors.known_models(benchmark=benchmark, version=q.get("version"), split=q["split"],
                                       shots=q["shots"], hub_ids=models)
        unknown = [m for m in models if m.lower() not in known]
        if unknown:
            _refuse("model", f"no result for {', '.join(map(repr, unknown))} on {benchmark.slug} {q['split']} "
                             f"{q['shots']}-shot; allowed values: the hub ids this board lists "
                             "(/api/v1/leaderboard/ with the same benchmark, split and shots).")
    return tuple(topics)


class LeaderboardApi(_Base):
    @extend_schema(parameters=[LeaderboardQuerySerializer, FORMAT_PARAM],
                   responses=paginated(LeaderboardRowSerializer), operation_id="v1_leaderboard_list")
    @cached_get
    def get(self, request):
        benchmark, q = self.board_query(request, LeaderboardQuerySerializer)
        categories = list(selectors.taxonomy_slugs(benchmark=benchmark))
        allowed = sort_names(categories)
        if q["sort"].lstrip("-") not in allowed:
            _refuse("sort", f"unknown sort {q['sort']!r}; allowed values: {', '.join(allowed)} "
                            "(a leading '-' sorts descending).")
        topics = scope(benchmark, q)
        rows = selectors.leaderboard(benchmark=benchmark, topics=topics, models=q.pop("model"), **q)
        if self.wants_csv(request):
            columns, flat = results_csv.leaderboard_csv(rows, categories=[] if display.is_sealed(q["split"])
                                                        else categories)
            return results_csv.streaming_csv(columns, flat,
                                             f"leaderboard-{benchmark.slug}-{q['split']}-{q['shots']}shot.csv")
        return self.rows_response(request, rows, serializer_class=LeaderboardRowSerializer, columns=None,
                                  filename=None)


class SubmittedPredictionsApi(_Base):
    """Predictions uploaded by their models' owners and scored here: labelled "submitted predictions", never
    ranked with (or shown as) the measured leaderboard, best first."""

    @extend_schema(parameters=[SubmittedPredictionsQuerySerializer, FORMAT_PARAM],
                   responses=paginated(SubmittedPredictionRowSerializer),
                   operation_id="v1_leaderboard_submitted_predictions_list")
    @cached_get
    def get(self, request):
        benchmark, q = self.board_query(request, SubmittedPredictionsQuerySerializer)
        rows = selectors.submitted_predictions(benchmark=benchmark, **q)
        return self.rows_response(request, rows, serializer_class=SubmittedPredictionRowSerializer,
                                  columns=list(SubmittedPredictionRowSerializer().fields),
                                  filename=f"submitted-predictions-{benchmark.slug}-{q['split']}.csv")


def _run_payload(result):
    run = result.run
    sealed = display.is_sealed(result.split)
    return {"run_id": run.pk, "benchmark": result.benchmark.slug, "benchmark_version": result.benchmark_version.number,
            "split": result.split, "shots": result.shots, "variants": run.variants,
            "primary_variant": result.primary_variant, "revision": result.revision, "precision": result.precision,
            "scored_at": result.scored_at, "breakdown_note": display.SEALED_BREAKDOWN_NOTE if sealed else "",
            "results": selectors.result_cells(result=result), "efficiency": run.efficiency or {},
            "reproducibility": {"library_versions": run.library_versions or {}, "template": run.template,
                                "template_hash": run.template_hash, "dataset_hash": run.dataset_hash,
                                "seed": run.seed, "hardware": run.hardware or {}, "backend": run.backend,
                                "compute_dtype": run.resolved_load["dtype"],
                                "quantization": run.resolved_load["quantization"],
                                "mode": run.mode, "use_chat_template": run.use_chat_template}}


class ModelDetailApi(_Base):
    @extend_schema(parameters=[FORMAT_PARAM], responses=ModelDetailSerializer)
    @cached_get
    def get(self, request, hub_id):
        model = model_entry_get(hub_id=hub_id)
        if model is not None and model.hidden:
            raise Http404(f"No model {hub_id!r}.")
        hub_id = model.hub_id if model else hub_id  # the board's spelling
        results = selectors.model_results(hub_id=hub_id)
        if model is None and not results:
            raise Http404(f"No model {hub_id!r}.")
        if self.wants_csv(request):
            rows = (row for result in results for row in selectors.result_csv_rows(result=result))
            return results_csv.streaming_csv(results_csv.MODEL_COLUMNS, rows, f"model-{_safe_name(hub_id)}.csv")
        runs = [_run_payload(r) for r in results]
        return Response(ModelDetailSerializer({
            "hub_id": hub_id, "params": model.params if model else None,
            "size_class": model.size_class if model else None, "model_type": model.model_type if model else "",
            "license": model.license if model else "", "architecture": model.architecture if model else "",
            "flagged": bool(model and model.flagged), "runs": runs}).data)


class ModelHistoryApi(_Base):
    @extend_schema(parameters=[FORMAT_PARAM], responses=HistoryRowSerializer(many=True))
    @cached_get
    def get(self, request, hub_id):
        model = model_entry_get(hub_id=hub_id)
        if model is not None and model.hidden:
            raise Http404(f"No model {hub_id!r}.")
        hub_id = model.hub_id if model else hub_id
        rows = selectors.model_history(hub_id=hub_id)
        if not rows and model is None:
            raise Http404(f"No model {hub_id!r}.")
        if self.wants_csv(request):
            return results_csv.streaming_csv(results_csv.HISTORY_COLUMNS, rows,
                                             f"history-{_safe_name(hub_id)}.csv")
        return Response(HistoryRowSerializer(rows, many=True).data)


class TopicsCsvApi(_Base):
    renderer_classes = [CSVRenderer, JSONRenderer]

    @extend_schema(parameters=[TopicsQuerySerializer], responses={(200, "text/csv"): OpenApiTypes.STR})
    @cached_get
    def get(self, request):
        benchmark, q = self.board_query(request, TopicsQuerySerializer)
        topics = scope(benchmark, q)
        rows = selectors.topic_table(benchmark=benchmark, topics=topics, models=q.pop("model"), **q)
        return results_csv.streaming_csv(results_csv.TOPIC_COLUMNS, rows,
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
