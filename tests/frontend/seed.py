"""Many scored models at once, written straight as aggregate rows (what pages read).

Faster than scoring runs one by one (tests/results/conftest.py does that for a few models):
1,000 models with their topic, subcategory and category cells take seconds.
"""
import hashlib
import random

from django.utils import timezone

from leaderboard.benchmarks.models import Benchmark, Topic
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.results.models import Level, ResultAggregate, RunResult
from leaderboard.submissions.models import ModelEntry

PRECISIONS = ("bfloat16", "float16", "int8", "gptq-4bit")
MODEL_TYPES = ("pretrained", "instruct", "reasoning")
VARIANTS = ("original", "fixed-A", "fixed-B", "fixed-C", "fixed-D", "R1", "R2", "R3", "R4")


def realistic_hub_ids(n, seed=0):
    """Varied ids shaped like real ones (org/Family-1.5B-Instruct-v2), so compressed sizes are not flattered."""
    rng = random.Random(seed)
    orgs = ["meta-llama", "Qwen", "google", "microsoft", "mistralai", "tiiuae", "ibm-granite", "allenai",
            "HuggingFaceTB", "stabilityai", "01-ai", "internlm", "nvidia", "LGAI-EXAONE", "deepseek-ai"]
    out = set()
    while len(out) < n:
        family = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9))).capitalize()
        out.add(f"{rng.choice(orgs)}-{rng.randint(0, 999)}/{family}{rng.choice(['', '2', '3.1', '2.5'])}-"
                f"{rng.choice(['0.5', '1', '1.5', '3', '7', '8', '14', '70'])}B-"
                f"{rng.choice(['Instruct', 'Chat', 'Base', 'it', 'GPTQ-Int4'])}")
    return sorted(out)


def seed_board(*, n_models, benchmark_slug="mobile-mmlu", split="validation", shots=0, variants=("original",),
               per_topic=6, prefix="seed-org/model-", seed=0, breakdown=True, hub_ids=None):
    """n_models models (named prefix0000..., or hub_ids) with one succeeded run each; returns their hub ids,
    best model first."""
    rng = random.Random(seed)
    benchmark = Benchmark.objects.get(slug=benchmark_slug)
    version = benchmark.versions.order_by("-number").first()
    topics = list(Topic.objects.filter(benchmark=benchmark).select_related("subcategory__category").order_by("order"))
    hub_ids = list(hub_ids or [f"{prefix}{i:04d}" for i in range(n_models)])[:n_models]
    existing = set(ModelEntry.objects.filter(hub_id__in=hub_ids).values_list("hub_id", flat=True))
    ModelEntry.objects.bulk_create([
        ModelEntry(hub_id=h, namespace=h.split("/")[0], params=rng.choice([5e8, 1.2e9, 2.7e9, 3.8e9, 7e9, 9e9, 3e10,
                                                                          7e10]),
                   model_type=MODEL_TYPES[i % 3], flagged=(i % 97 == 13))
        for i, h in enumerate(hub_ids) if h not in existing])
    models = {m.hub_id: m for m in ModelEntry.objects.filter(hub_id__in=hub_ids)}
    now = timezone.now()
    runs = EvaluationRun.objects.bulk_create([
        EvaluationRun(benchmark_version=version, split=split, model_ref=h,
                      model_revision=hashlib.sha1(f"{seed}:{h}".encode()).hexdigest(),
                      precision=PRECISIONS[i % len(PRECISIONS)], shots=shots, variants=list(variants),
                      status=RunStatus.SUCCEEDED, template_hash="f" * 64, seed=1234,
                      dataset_hash=version.split_hashes.get(split, ""), finished_at=now,
                      library_versions={"python": "3.12", "torch": "2.6.0"}, hardware={"gpu": "H100"},
                      efficiency={"label": "server measurement (evaluating hardware, not on-device)",
                                  "prefill_tokens_per_s": 1000.0 + i, "load_seconds": 3.0})
        for i, h in enumerate(hub_ids)])
    results = RunResult.objects.bulk_create([
        RunResult(run=run, model=models[h], hub_id=h, revision=run.model_revision, precision=run.precision,
                  benchmark=benchmark, benchmark_version=version, split=split, shots=shots,
                  primary_variant=variants[0], scored_at=now)
        for run, h in zip(runs, hub_ids)])
    aggs = []
    for i, result in enumerate(results):
        skill = 0.8 - 0.55 * i / max(1, n_models - 1)  # the first model is the best
        for variant in variants:
            cells = {}
            for topic in topics:
                n = per_topic
                correct = sum(rng.random() < skill for _ in range(n))
                sub, cat = topic.subcategory, topic.subcategory.category
                for level, key, name in ((Level.OVERALL, "", ""), (Level.CATEGORY, cat.slug, cat.name),
                                         (Level.SUBCATEGORY, f"{cat.slug}/{sub.slug}", sub.name),
                                         (Level.TOPIC, topic.slug, topic.name)):
                    if level != Level.OVERALL and not breakdown:
                        continue
                    cell = cells.setdefault((level, key), [name, 0, 0])
                    cell[1] += n
                    cell[2] += correct
            aggs += [ResultAggregate(result=result, variant=variant, level=level, key=key, name=name, n=n,
                                     correct=correct) for (level, key), (name, n, correct) in cells.items()]
    ResultAggregate.objects.bulk_create(aggs, batch_size=5000)
    return hub_ids
