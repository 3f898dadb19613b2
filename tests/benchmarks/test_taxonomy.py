import pytest
from django.db.models import Sum

from leaderboard.benchmarks.models import Benchmark, Category, Subcategory, Topic

pytestmark = pytest.mark.django_db


def test_it_loads_the_published_mobile_mmlu_taxonomy():
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    assert Category.objects.filter(benchmark=benchmark).count() == 9
    assert Subcategory.objects.filter(category__benchmark=benchmark).count() == 27
    assert Topic.objects.filter(benchmark=benchmark).count() == 80
    assert Topic.objects.filter(benchmark=benchmark).aggregate(n=Sum("published_population"))["n"] == 16186


def test_it_carries_the_published_topic_mrscores():
    topics = Topic.objects.filter(benchmark__slug="mobile-mmlu")
    scores = [t.published_mrscore for t in topics]
    assert None not in scores
    assert round(sum(scores) / len(scores), 2) == pytest.approx(5.88, abs=0.02)  # paper: mean 5.88
    assert sum(s >= 7.0 for s in scores) == 21  # paper Table 9: 21 topics >= 7.0
    assert topics.get(name="Travel Planning").published_mrscore == 8.43


def test_it_gives_mobile_mmlu_pro_the_same_topics_without_populations():
    pro = Topic.objects.filter(benchmark__slug="mobile-mmlu-pro")
    assert pro.count() == 80 and not pro.exclude(published_population=None).exists()
    assert pro.get(hub_field="marketing__and_sales_strarigies").name == "Marketing & Sales Strategies"
