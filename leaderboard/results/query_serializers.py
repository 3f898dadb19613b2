"""The results API's query strings, parsed and checked by serializers: each invalid value is a 400 naming the
parameter and its allowed values, an unknown benchmark a 404. The validated data holds the Benchmark, its
BenchmarkVersion (None: the current one) and, for a board, the topic slugs that ?topic= and ?category= name."""
from rest_framework import serializers
from rest_framework.exceptions import NotFound

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.shots import shots_field
from leaderboard.core.api import Repeated
from leaderboard.core.converters import MAX_ID
from leaderboard.evaluations import display

from . import selectors
from .board import SIZE_CLASSES, sort_names

VERSION_HELP = "benchmark version number (default: the current one)"


def _refuse(name, message):
    raise serializers.ValidationError({name: [message]})


def _allowed(name, values, allowed):
    unknown = [v for v in values if v not in allowed]
    if unknown:
        _refuse(name, f"unknown {name} {', '.join(map(repr, unknown))}; allowed values: {', '.join(allowed)}.")


def resolve_board(attrs) -> dict:
    """`benchmark` as the Benchmark (404 when unknown) and `version` as its BenchmarkVersion."""
    slug, number = attrs["benchmark"], attrs.get("version")
    benchmark = bench_selectors.benchmark_get(slug=slug)
    if benchmark is None:
        raise NotFound(f"No benchmark {slug!r}.")
    version, valid = selectors.version_get(benchmark=benchmark, number=number)
    if version is None and valid is not None:
        listed = ", ".join(map(str, valid)) or "none yet"
        _refuse("version", f"{slug} has no version {number}; valid versions: {listed}.")
    return {**attrs, "benchmark": benchmark, "version": version}


def resolve_scope(attrs) -> dict:
    """`topics`: the topic slugs that ?topic= and ?category= name (both dropped), checked against the benchmark's
    taxonomy and refused on the sealed split; () when neither is given. ?model= is checked against the board's
    rows: every hub id must name one (any case)."""
    attrs = dict(attrs)
    benchmark, models = attrs["benchmark"], attrs["model"]
    topics, categories = attrs.pop("topic"), attrs.pop("category")
    if topics or categories:
        if display.is_sealed(attrs["split"]):
            _refuse("topic" if topics else "category", f"{display.SEALED_BREAKDOWN_NOTE}; use split=validation.")
        taxonomy = selectors.taxonomy_slugs(benchmark=benchmark)
        _allowed("topic", topics, [t for members in taxonomy.values() for t in members])
        _allowed("category", categories, list(taxonomy))
        topics = list(dict.fromkeys(topics + [t for c in categories for t in taxonomy[c]]))
    if models:
        known = selectors.known_models(benchmark=benchmark, version=attrs["version"], split=attrs["split"],
                                       shots=attrs["shots"], hub_ids=models)
        unknown = [m for m in models if m.lower() not in known]
        if unknown:
            _refuse("model", f"no result for {', '.join(map(repr, unknown))} on {benchmark.slug} {attrs['split']} "
                             f"{attrs['shots']}-shot; allowed values: the hub ids this board lists "
                             "(/api/v1/leaderboard/ with the same benchmark, split and shots).")
    return {**attrs, "topics": tuple(topics)}


class _Scope(serializers.Serializer):
    """Narrowing to topics, categories and models."""

    topic = Repeated(required=False, default=list, help_text="topic slug(s): rows pooled over those topics' "
                     "questions; repeatable. Open split only")
    category = Repeated(required=False, default=list, help_text="category slug(s): all topics of those categories; "
                        "repeatable. Open split only")
    model = Repeated(required=False, default=list, help_text="hub id(s), any case; repeatable. Ranks are unchanged")


class LeaderboardQuerySerializer(_Scope):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "test"], default="validation")
    shots = shots_field()
    variant = serializers.CharField(default="original")
    size_class = serializers.ChoiceField(choices=SIZE_CLASSES, required=False)
    on_device = serializers.BooleanField(default=False, help_text="params ≤ 3B")
    params_min = serializers.FloatField(min_value=0, required=False, help_text="billions of parameters, at least")
    params_max = serializers.FloatField(min_value=0, required=False, help_text="billions of parameters, at most")
    model_type = serializers.CharField(required=False)
    precision = serializers.CharField(required=False)
    flagged = serializers.BooleanField(required=False, allow_null=True, default=None,
                                       help_text="true: flagged rows only; false: none; absent: both")
    include_reported = serializers.BooleanField(default=False, help_text="append the paper's rows: unranked, after "
                                                "the measured ones, left out under a parameter/type/precision filter")
    search = serializers.CharField(required=False)
    sort = serializers.CharField(default="rank", help_text="one of " + ", ".join(sort_names()) + ", "
                                 "category:<slug>; a leading '-' sorts descending")
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text=VERSION_HELP)

    def validate(self, attrs):
        low, high = attrs.get("params_min"), attrs.get("params_max")
        if low is not None and high is not None and low > high:
            _refuse("params_max", "must be at least params_min.")
        attrs = resolve_board(attrs)
        allowed = sort_names(list(selectors.taxonomy_slugs(benchmark=attrs["benchmark"])))
        if attrs["sort"].lstrip("-") not in allowed:
            _refuse("sort", f"unknown sort {attrs['sort']!r}; allowed values: {', '.join(allowed)} "
                            "(a leading '-' sorts descending).")
        return resolve_scope(attrs)


class TopicsQuerySerializer(_Scope):
    benchmark = serializers.SlugField()
    split = serializers.ChoiceField(choices=["validation"], default="validation",
                                    help_text="open split only: per-topic test figures are not published")
    shots = shots_field()
    variant = serializers.CharField(default="original")
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text=VERSION_HELP)

    def validate(self, attrs):
        return resolve_scope(resolve_board(attrs))


class SubmittedPredictionsQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "dev"], default="validation",
                                    help_text="open splits only: predictions of the sealed split are never accepted")
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text=VERSION_HELP)

    def validate(self, attrs):
        return resolve_board(attrs)
