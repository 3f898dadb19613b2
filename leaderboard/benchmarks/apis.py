"""Read-only API over benchmarks and their taxonomy. Only counts of the sealed split are exposed."""
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from leaderboard.core.api import BaseApi

from . import selectors
from .serializers import BenchmarkDetailSerializer, BenchmarkSerializer


def _benchmark_payload(benchmark):
    version = selectors.version_current(benchmark=benchmark)
    return benchmark, version, selectors.version_split_counts(version=version)


class BenchmarkListApi(BaseApi):
    @extend_schema(responses=BenchmarkSerializer(many=True))
    def get(self, request):
        rows = []
        for benchmark in selectors.benchmark_list():
            benchmark, version, counts = _benchmark_payload(benchmark)
            rows.append(BenchmarkSerializer.from_parts(benchmark, version, counts))
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
