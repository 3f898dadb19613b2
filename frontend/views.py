"""HTML pages. Thin: data comes from selectors."""
from django.http import Http404
from django.shortcuts import render

from leaderboard.benchmarks import selectors


def home(request):
    benchmarks = []
    for benchmark in selectors.benchmark_list():
        version = selectors.version_current(benchmark=benchmark)
        benchmarks.append({"benchmark": benchmark, "version": version,
                           "counts": selectors.version_split_counts(version=version)})
    return render(request, "frontend/home.html", {"benchmarks": benchmarks})


def benchmark_detail(request, slug):
    benchmark = selectors.benchmark_get(slug=slug)
    if benchmark is None:
        raise Http404("No such benchmark.")
    version = selectors.version_current(benchmark=benchmark)
    return render(request, "frontend/benchmark_detail.html", {
        "benchmark": benchmark, "version": version,
        "counts": selectors.version_split_counts(version=version),
        "categories": selectors.taxonomy_tree(benchmark=benchmark, version=version),
    })
