"""Read-only API over benchmarks and their taxonomy. Only counts of the sealed split are exposed. The list takes
`?format=csv` (the question counts as one column per split)."""
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.core.api import FORMAT_PARAM, BaseApi
from leaderboard.core.csv import flatten
from leaderboard.core.csv_http import CSVRenderer

from . import selectors
from .models import Split
from .serializers import BenchmarkDetailSerializer, BenchmarkSerializer

COLUMNS = ["slug", "name", "description", "source_repo", "version", "source_revision", "content_hash",
           *(f"questions_{split}" for split in Split.values)]


def _benchmark_payload(benchmark):
    version = selectors.version_current(benchmark=benchmark)
    return benchmark, version, selectors.version_split_counts(version=version)


class BenchmarkListApi(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    @extend_schema(parameters=[FORMAT_PARAM], responses=BenchmarkSerializer(many=True))
    def get(self, request):
        rows = []
        for benchmark in selectors.benchmark_list():
            benchmark, version, counts = _benchmark_payload(benchmark)
            rows.append(BenchmarkSerializer.from_parts(benchmark, version, counts))
        if self.wants_csv():
            return self.csv(COLUMNS, [flatten(row) for row in rows], "benchmarks.csv")
        return Response(rows)


class BenchmarkDetailApi(BaseApi):
    @extend_schema(responses=BenchmarkDetailSerializer)
    def get(self, request, slug):
        benchmark = selectors.benchmark_get(slug=slug)
        if benchmark is None:
            raise Http404(f"No benchmark {slug!r}.")
        benchmark, version, counts = _benchmark_payload(benchmark)
        data = BenchmarkSerializer.from_parts(benchmark, version, counts)
        data["categories"] = BenchmarkDetailSerializer.taxonomy(selectors.taxonomy_tree(benchmark=benchmark, version=version))
        return Response(data)
