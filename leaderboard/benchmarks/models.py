"""The question bank: Benchmark → Category → Subcategory → Topic, and versioned questions.

A BenchmarkVersion pins a content hash; runs point at a version, so new content
for a benchmark that already has runs becomes a new version instead of
overwriting what those runs measured.
"""
from django.core.exceptions import ValidationError
from django.db import models

OPTION_LETTERS = "ABCDEFGHIJ"
MIN_OPTIONS, MAX_OPTIONS = 2, 10


class Split(models.TextChoices):
    DEV = "dev", "dev (few-shot exemplars)"
    VALIDATION = "validation", "validation (open)"
    TEST = "test", "test (sealed)"


SEALED_SPLITS = frozenset({Split.TEST})


class Benchmark(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    source_repo = models.CharField(max_length=200, blank=True, help_text="Hugging Face dataset repo id")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self):
        return self.slug


class BenchmarkVersion(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    source_revision = models.CharField(max_length=100, blank=True, help_text="hub commit sha or tag")
    # sha256 over the splits' hashes; split_hashes maps split → sha256 of its canonical content, or for the
    # sealed split an HMAC-SHA256 keyed from SEALED_ANSWER_KEYS (content_hashes.split_content_hash): published, it
    # must not let anyone check a guessed answer key offline.
    content_hash = models.CharField(max_length=64, blank=True)
    split_hashes = models.JSONField(default=dict, blank=True)
    # crypto.key_fingerprint of the SEALED_ANSWER_KEYS entry that encrypted this version's sealed answers: the
    # start-up check (benchmarks/checks.py) names it when the configured keys cannot open them. Never the key.
    sealed_key_fingerprint = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["benchmark", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "number"], name="unique_benchmark_version"),
        ]

    def __str__(self):
        return f"{self.benchmark.slug} v{self.number}"


class TaxonomyLevel(models.Model):
    """A level of the taxonomy (category, subcategory, topic): a name, a slug unique under its parent, an order."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True

    def __str__(self):
        return self.name


def level_meta(parent: str, unique_name: str, *constraints, **options) -> type:
    """The Meta of a taxonomy level under ``parent``: listed in ``order`` under it, its slug unique under it
    (constraint ``unique_name``), then the level's own ``constraints`` and ``options``."""
    slug = models.UniqueConstraint(fields=[parent, "slug"], name=unique_name)
    return type("Meta", (), {"ordering": [parent, "order"], "constraints": [slug, *constraints], **options})


class Category(TaxonomyLevel):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="categories")
    Meta = level_meta("benchmark", "unique_category_slug", verbose_name_plural="categories")


class Subcategory(TaxonomyLevel):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="subcategories")
    Meta = level_meta("category", "unique_subcategory_slug", verbose_name_plural="subcategories")


class Topic(TaxonomyLevel):
    # Denormalised benchmark so importers and pages find a topic in one lookup.
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="topics")
    subcategory = models.ForeignKey(Subcategory, on_delete=models.CASCADE, related_name="topics")
    hub_field = models.CharField(max_length=100, help_text="file stem of the topic in the hub dataset")
    published_population = models.PositiveIntegerField(null=True, blank=True)
    published_mrscore = models.FloatField(null=True, blank=True, help_text="paper, Appendix C Table 10")
    Meta = level_meta("benchmark", "unique_topic_slug",
                      models.UniqueConstraint(fields=["benchmark", "hub_field"], name="unique_topic_hub_field"))


class Question(models.Model):
    version = models.ForeignKey(BenchmarkVersion, on_delete=models.CASCADE, related_name="questions")
    uid = models.CharField(max_length=100, help_text="the dataset's public question_id")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="questions")
    split = models.CharField(max_length=12, choices=Split.choices)
    position = models.PositiveIntegerField(help_text="order within the import, for stable iteration")
    text = models.TextField()
    options = models.JSONField(help_text="2 to 10 option strings, lettered A, B, ... in order")
    # Open splits keep answer letters in clear ("A" or "A,C"); the sealed split keeps
    # only ciphertext in answer_sealed and leaves answer empty.
    answer = models.CharField(max_length=19, blank=True)
    answer_sealed = models.BinaryField(null=True, blank=True, editable=False)
    mrscore = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    # What a publisher's file carries beyond the question itself, only the keys present: MMLU-Pro's "src" (the
    # question's origin) and "cot_content" (a worked chain of thought that states the answer; the few-shot
    # exemplars of its dev split). Never "cot_content" in the sealed split (importers.validation drops it).
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["version", "split", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "uid"], name="unique_question_uid_per_version"),
            models.CheckConstraint(
                condition=(models.Q(split="test", answer="", answer_sealed__isnull=False)
                           | (~models.Q(split="test") & ~models.Q(answer="") & models.Q(answer_sealed__isnull=True))),
                name="sealed_answers_only_encrypted",
            ),
        ]
        indexes = [models.Index(fields=["version", "split", "topic"])]

    def __str__(self):
        return self.uid

    @property
    def is_sealed(self):
        return self.split in SEALED_SPLITS

    def clean(self):
        if not MIN_OPTIONS <= len(self.options or []) <= MAX_OPTIONS:
            raise ValidationError(f"A question needs {MIN_OPTIONS} to {MAX_OPTIONS} options.")
