"""What every API view of the apps shares: the base class (query parsing, pagination, CSV negotiation) and the one
exception handler (REST_FRAMEWORK["EXCEPTION_HANDLER"]) that answers a DomainError, so views need no try/except.
Whatever a request wrote before its refusal is rolled back by core.middleware.AtomicRequestMiddleware (every 4xx).

Bounds (issue 22): a view accepts only the query parameters it declares (its `query_serializer`, `format`, and
`limit`/`offset` when it pages), so a made-up parameter is a 400 naming it rather than a new cache entry; a page
holds at most MAX_PAGE_SIZE rows; a repeatable parameter at most MAX_VALUES values."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, views
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from .errors import DomainError

MAX_PAGE_SIZE = 500
MAX_VALUES = 100  # of one repeatable parameter (?topic=a&topic=b or a,b): a benchmark has fewer topics
ALWAYS_ACCEPTED = ("format",)  # DRF's renderer override: ?format=json|csv|api
FORMAT_PARAM = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"])  # views that offer CSV
# limit/offset for a paged view whose page is not `Serializer(many=True)` (drf-spectacular documents those itself)
PAGE_PARAMS = [OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                                description=f"Number of results to return per page, at most {MAX_PAGE_SIZE}."),
               OpenApiParameter("offset", {"type": "integer", "minimum": 0},
                                description="The initial index from which to return the results.")]


def _wants_csv(request) -> bool:
    return getattr(getattr(request, "accepted_renderer", None), "format", "") == "csv"


def exception_handler(exc, context):
    """A DomainError as `{"code", "detail", "hint", ...}` with its status; the rest as DRF answers them, except
    that a 400 asked for as CSV says which parameter and why in plain words (one "detail" cell), as JSON would."""
    if isinstance(exc, DomainError):
        return Response(exc.as_dict(), status=exc.status)
    response = views.exception_handler(exc, context)
    request = context.get("request")
    if response is not None and isinstance(exc, ValidationError) and _wants_csv(request) \
            and isinstance(response.data, dict):
        response.data = {"detail": "; ".join(f"{name}: {' '.join(map(str, messages))}"
                                             for name, messages in response.data.items())}
    return response


class Repeated(serializers.ListField):
    """A repeatable query parameter (?topic=a&topic=b); comma-separated values are split too, at most MAX_VALUES."""

    child = serializers.CharField()

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_VALUES)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        return list(dict.fromkeys(v.strip() for value in values for v in value.split(",") if v.strip()))


class Pagination(LimitOffsetPagination):
    """`limit` (rows per page, default PAGE_SIZE) and `offset` of a list, with a maximum page: a larger `limit` is
    served as MAX_PAGE_SIZE rows (DRF's max_limit; `next` pages on), documented as the parameter's maximum."""

    max_limit = MAX_PAGE_SIZE

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_limit)
                parameter["description"] += f" At most {self.max_limit}: a larger limit is served as {self.max_limit}."
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"].update(minimum=0)
        return parameters


class BaseApi(views.APIView):
    # Base of the apps' API views (a comment, not a docstring: drf-spectacular would show an inherited docstring
    # as every operation's description). A list endpoint sets `pagination_class` (`Pagination`): drf-spectacular
    # then documents the page and its limit/offset parameters from `responses=Serializer(many=True)`. Query
    # strings are parsed by the view's `query_serializer` (`query`), so an invalid value is a 400 naming the
    # parameter, and a parameter it does not declare is a 400 naming it and the accepted ones.
    pagination_class = None
    query_serializer = None

    def accepted_query_names(self) -> list[str]:
        names = list(self.query_serializer().fields) if self.query_serializer else []
        if self.pagination_class:
            names += [self.paginator.limit_query_param, self.paginator.offset_query_param]
        return names + list(ALWAYS_ACCEPTED)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        accepted = self.accepted_query_names()
        unknown = [name for name in request.query_params if name not in accepted]
        if unknown:
            shown = ", ".join(repr(name[:50]) for name in unknown[:10]) + (", ..." if len(unknown) > 10 else "")
            raise DomainError("UNKNOWN_PARAMETER", f"unknown query parameter{'s' * (len(unknown) > 1)} {shown}",
                              f"this endpoint accepts: {', '.join(accepted)}", 400,
                              unknown=unknown[:10], accepted=accepted)

    @property
    def paginator(self):
        if not hasattr(self, "_paginator"):
            self._paginator = self.pagination_class() if self.pagination_class else None
        return self._paginator

    def query(self, serializer_class=None, **context) -> dict:
        """The validated query parameters (by `query_serializer` unless another is given), or a 400 naming each
        invalid one."""
        serializer = serializer_class or self.query_serializer
        query = serializer(data=self.request.query_params, context={"request": self.request, **context})
        query.is_valid(raise_exception=True)
        return dict(query.validated_data)

    def wants_csv(self) -> bool:
        return _wants_csv(self.request)

    def csv(self, columns, rows, filename):
        """A table (rows: flat mappings) for CSVRenderer, downloaded as `filename`."""
        response = Response({"columns": columns, "rows": rows})
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def paginate(self, rows):
        """This request's page of rows (a list or queryset)."""
        return self.paginator.paginate_queryset(rows, self.request, view=self)

    def page_response(self, rows, serializer_class, prepare=None):
        """`{"count", "next", "previous", "results"}`: this request's page, serialized (after prepare(page), which
        adds what only the page's rows need)."""
        page = self.paginate(rows)
        return self.paginator.get_paginated_response(serializer_class(prepare(page) if prepare else page,
                                                                      many=True).data)
