"""A benchmark's page: source, version, split counts and its taxonomy with the published figures."""
from django.http import Http404
from django.shortcuts import render

from leaderboard.benchmarks import selectors


def benchmark_detail(request, slug):
    benchmark = selectors.benchmark_get(slug=slug)
    if benchmark is None:
        raise Http404("No such benchmark.")
    version = selectors.version_current(benchmark=benchmark)
    categories = list(selectors.taxonomy_tree(benchmark=benchmark, version=version))
    data = taxonomy_chart(categories)
    return render(request, "frontend/benchmark_detail.html", {
        "benchmark": benchmark, "version": version, "counts": selectors.version_split_counts(version=version),
        "categories": categories, "data": data,
        "summary": (f"{data['counts'][0]} categories, {data['counts'][1]} subcategories and {data['counts'][2]} "
                    f"topics, sized by the published question counts ({data['total']:,} in all)."),
    })


def taxonomy_chart(categories) -> dict:
    """Sunburst data: categories, subcategories and topics, topics sized by their published populations."""
    data = {"ids": [], "labels": [], "parents": [], "values": []}
    counts = [0, 0, 0]

    def add(level, node_id, label, parent, value=0):
        for key, item in zip(data, (node_id, label, parent, value)):
            data[key].append(item)
        counts[level] += 1

    for cat in categories:
        add(0, cat.slug, cat.name, "")
        for sub in cat.subcategories.all():
            sub_id = f"{cat.slug}/{sub.slug}"
            add(1, sub_id, sub.name, cat.slug)
            for topic in sub.topics.all():
                add(2, f"{sub_id}/{topic.slug}", topic.name, sub_id, topic.published_population or 1)
    return {**data, "counts": counts, "total": sum(data["values"])}


def benchmark_rows():
    """Each benchmark with its current version and split counts (the home page's list)."""
    rows = []
    for benchmark in selectors.benchmark_list():
        version = selectors.version_current(benchmark=benchmark)
        rows.append({"benchmark": benchmark, "version": version,
                     "counts": selectors.version_split_counts(version=version)})
    return rows
