"""What every API view of the apps shares: the base class (query parsing, pagination, CSV negotiation) and the one
exception handler (REST_FRAMEWORK["EXCEPTION_HANDLER"]) that answers a DomainError, so views need no try/except."""
from rest_framework import serializers, views
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from .errors import DomainError


def _wants_csv(request) -> bool:
    return getattr(getattr(request, "accepted_renderer", None), "format", "") == "csv"


def exception_handler(exc, context):
    """A DomainError as `{"code", "detail", "hint", ...}` with its status; the rest as DRF answers them, except
    that a 400 asked for as CSV says which parameter and why in plain words (one "detail" cell), as JSON would."""
    if isinstance(exc, DomainError):
        views.set_rollback()
        return Response(exc.as_dict(), status=exc.status)
    response = views.exception_handler(exc, context)
    request = context.get("request")
    if response is not None and isinstance(exc, ValidationError) and _wants_csv(request) \
            and isinstance(response.data, dict):
        response.data = {"detail": "; ".join(f"{name}: {' '.join(map(str, messages))}"
                                             for name, messages in response.data.items())}
    return response


class Repeated(serializers.ListField):
    """A repeatable query parameter (?topic=a&topic=b); comma-separated values are split too."""

    child = serializers.CharField()

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        return list(dict.fromkeys(v.strip() for value in values for v in value.split(",") if v.strip()))


class BaseApi(views.APIView):
    # Base of the apps' API views (a comment, not a docstring: drf-spectacular would show an inherited docstring
    # as every operation's description). A list endpoint sets `pagination_class`: drf-spectacular then documents
    # the page and its limit/offset parameters from `responses=Serializer(many=True)`. Query strings are parsed
    # by a serializer (`query`), so an invalid value is a 400 naming the parameter.
    pagination_class = None

    @property
    def paginator(self):
        if not hasattr(self, "_paginator"):
            self._paginator = self.pagination_class() if self.pagination_class else None
        return self._paginator

    def query(self, serializer_class, **context) -> dict:
        """The validated query parameters, or a 400 naming each invalid one."""
        query = serializer_class(data=self.request.query_params, context={"request": self.request, **context})
        query.is_valid(raise_exception=True)
        return dict(query.validated_data)

    def wants_csv(self) -> bool:
        return _wants_csv(self.request)

    def paginate(self, rows):
        """This request's page of rows (a list or queryset)."""
        return self.paginator.paginate_queryset(rows, self.request, view=self)

    def page_response(self, rows, serializer_class):
        """`{"count", "next", "previous", "results"}`: this request's page, serialized."""
        return self.paginator.get_paginated_response(serializer_class(self.paginate(rows), many=True).data)
