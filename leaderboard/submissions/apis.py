"""Submission endpoints: thin views over services and presenters."""
from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from . import presenters, selectors, services, uploads
from .errors import SubmissionError
from .models import Submission
from .serializers import (ErrorSerializer, PredictionUploadInputSerializer, SubmissionInputSerializer,
                          SubmissionOutputSerializer)


def error_response(exc: SubmissionError):
    return Response(exc.as_dict(), status=exc.status)


class SubmissionPostThrottle(ScopedRateThrottle):
    """SUBMISSION_THROTTLE_RATE submission POSTs per user (scope "submissions", one count for models and
    uploaded predictions); reads are not counted. The rate is read from the settings at each request (DRF's
    THROTTLE_RATES is read once, at import)."""

    def allow_request(self, request, view):
        return request.method != "POST" or super().allow_request(request, view)

    def get_rate(self):
        return settings.SUBMISSION_THROTTLE_RATE


class Throttled(exceptions.Throttled):
    """429 in the shape of the other refusals (code, detail, hint), with Retry-After."""

    def __init__(self, wait):
        super().__init__(wait)
        self.detail = {"code": "THROTTLED", "detail": f"too many requests to the submissions API; try again in "
                                                      f"{self.wait or 1} seconds",
                       "hint": f"each user may send {settings.SUBMISSION_THROTTLE_RATE} submissions, accepted "
                               "or refused"}


class SubmissionThrottling:
    throttle_scope = "submissions"

    def get_throttles(self):
        return [*super().get_throttles(), SubmissionPostThrottle()]

    def throttled(self, request, wait):
        raise Throttled(wait)


class SubmissionListCreateApi(SubmissionThrottling, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=SubmissionOutputSerializer(many=True))
    def get(self, request):
        return Response([presenters.submission_status(s) for s in selectors.submissions_of(user=request.user)])

    @extend_schema(request=SubmissionInputSerializer,
                   responses={201: SubmissionOutputSerializer, 400: ErrorSerializer, 409: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request):
        data = SubmissionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            submission = services.submission_create(user=request.user, **data.validated_data)
        except SubmissionError as exc:
            return error_response(exc)
        return Response(presenters.submission_status(submission), status=status.HTTP_201_CREATED)


class SubmissionDetailApi(APIView):
    """Status of one submission: anyone may read it (no sealed content is in it)."""

    @extend_schema(responses=SubmissionOutputSerializer)
    def get(self, request, pk):
        submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk, hidden=False)
        return Response(presenters.submission_status(submission))


class UploadTooLarge(exceptions.APIException):
    """413 in the shape of the other refusals, raised before the request body is read."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE

    def __init__(self, error: SubmissionError):
        super().__init__()
        self.detail = error.as_dict()


class PredictionUploadApi(SubmissionThrottling, APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def initial(self, request, *args, **kwargs):
        # First of all: authentication's CSRF check reads request.POST, which parses (reads) the whole body.
        if request.method == "POST":
            refusal = uploads.request_too_large(request.META.get("CONTENT_LENGTH"))
            if refusal is not None:
                raise UploadTooLarge(refusal)
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
        try:  # the file is read in bounded pieces there, after its declared size is checked
            submission = uploads.predictions_submit(user=request.user, name=v["name"], benchmark_slug=v["benchmark"],
                                                    split=v["split"], data=v["file"], filename=v["file"].name)
        except SubmissionError as exc:
            return error_response(exc)
        return Response(presenters.submission_status(submission), status=status.HTTP_201_CREATED)
