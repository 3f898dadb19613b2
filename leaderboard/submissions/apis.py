"""Submission endpoints: thin views over services and the output serializer; a refusal (SubmissionError) is
answered by the exception handler (core/api.py)."""
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.core.api import FORMAT_PARAM, BaseApi
from leaderboard.core.csv import flatten
from leaderboard.core.csv_http import CSVRenderer
from leaderboard.core.parsers import JSONParser
from leaderboard.core.throttling import PostThrottling
from leaderboard.hub.ids import model_ref

from . import selectors, services, uploads
from .serializers import (ErrorSerializer, PredictionUploadInputSerializer, SubmissionInputSerializer,
                          SubmissionOutputSerializer)


# ?format=csv of the list: a row per run, the submission's fields first and the run's as run_<field>.
CSV_COLUMNS = ["id", "kind", "hub_id", "revision", "revision_sha", "precision", "model_type", "use_chat_template",
               "benchmarks", "gguf_file", "gguf_sha256", "gguf_quantization", "ondevice_variants", "status", "created_at",
               *(f"run_{c}" for c in (
                   "id", "benchmark", "split", "model", "variants", "status", "attempts", "queue_position", "eta_seconds",
                   "items_done", "items_total", "chunks_done", "chunks_total", "accuracy", "rerun_of",
                   "accuracy_note", "accuracy_change", "failure_code", "failure_reason", "failure_log_excerpt"))]


def _csv_rows(submissions):
    for submission in submissions:
        row = flatten({k: v for k, v in submission.items() if k != "runs"})
        for run in submission["runs"] or [{}]:  # a submission without runs yet: one row
            yield {**row, **flatten(run, "run_")}


class SubmissionThrottling(PostThrottling):
    """SUBMISSION_THROTTLE_RATE submission POSTs per user (scope "submissions", one count for models and uploaded
    predictions); reads are not counted (core/throttling.py)."""

    throttle_scope = "submissions"
    throttle_rate_setting = "SUBMISSION_THROTTLE_RATE"
    throttle_what = "submissions"


class SubmissionListCreateApi(SubmissionThrottling, BaseApi):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    @extend_schema(parameters=[FORMAT_PARAM], responses=SubmissionOutputSerializer(many=True))
    def get(self, request):
        data = SubmissionOutputSerializer(selectors.submissions_of(user=request.user), many=True).data
        if self.wants_csv():
            return self.csv(CSV_COLUMNS, list(_csv_rows(data)), "submissions.csv")
        return Response(data)

    @extend_schema(request=SubmissionInputSerializer,
                   responses={201: SubmissionOutputSerializer, 400: ErrorSerializer, 409: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request):
        data = SubmissionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        ref = model_ref(fields.pop("hub_id"), fields.pop("revision"))  # the one check of the typed id
        submission = services.submission_create(user=request.user, ref=ref, **fields)
        return Response(SubmissionOutputSerializer(submission).data, status=status.HTTP_201_CREATED)


class SubmissionDetailApi(BaseApi):
    """Status of one submission: anyone may read it (no sealed content is in it)."""

    @extend_schema(responses=SubmissionOutputSerializer)
    def get(self, request, pk):
        submission = selectors.public_submission_or_404(pk=pk)
        return Response(SubmissionOutputSerializer(submission).data)


class PredictionUploadApi(SubmissionThrottling, BaseApi):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def initial(self, request, *args, **kwargs):
        # First of all: authentication's CSRF check reads request.POST, which parses (reads) the whole body.
        if request.method == "POST":
            refusal = uploads.request_too_large(request.META.get("CONTENT_LENGTH"))
            if refusal is not None:
                raise refusal
        super().initial(request, *args, **kwargs)

    @extend_schema(request={"multipart/form-data": PredictionUploadInputSerializer},
                   responses={201: SubmissionOutputSerializer, 400: ErrorSerializer, 403: ErrorSerializer,
                              413: ErrorSerializer, 429: ErrorSerializer},
                   description="Scores a predictions file for a model of a namespace you own (your username, or "
                               "one an admin granted you; else 403 NOT_NAMESPACE_OWNER). The result is listed "
                               "under submitted predictions, never on the measured leaderboard.")
    def post(self, request):
        data = PredictionUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        # the file is read in bounded pieces there, after its declared size is checked
        submission = uploads.predictions_submit(user=request.user, name=v["name"], benchmark_slug=v["benchmark"],
                                                split=v["split"], data=v["file"], filename=v["file"].name)
        return Response(SubmissionOutputSerializer(submission).data, status=status.HTTP_201_CREATED)
