from rest_framework import serializers


class TopicSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    hub_field = serializers.CharField()
    published_population = serializers.IntegerField(allow_null=True)
    published_mrscore = serializers.FloatField(allow_null=True)
    questions = serializers.DictField(child=serializers.IntegerField(), help_text="question count per split")


class SubcategorySerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    topics = TopicSerializer(many=True)


class CategorySerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    subcategories = SubcategorySerializer(many=True)


class BenchmarkSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    source_repo = serializers.CharField()
    version = serializers.IntegerField(allow_null=True)
    source_revision = serializers.CharField()
    content_hash = serializers.CharField()
    questions = serializers.DictField(child=serializers.IntegerField(), help_text="question count per split")

    @staticmethod
    def from_parts(benchmark, version, counts):
        return {
            "slug": benchmark.slug, "name": benchmark.name, "description": benchmark.description,
            "source_repo": benchmark.source_repo,
            "version": version.number if version else None,
            "source_revision": version.source_revision if version else "",
            "content_hash": version.content_hash if version else "",
            "questions": counts,
        }


class BenchmarkDetailSerializer(BenchmarkSerializer):
    categories = CategorySerializer(many=True)

    @staticmethod
    def taxonomy(categories):
        def topic(t):
            return {"name": t.name, "slug": t.slug, "hub_field": t.hub_field,
                    "published_population": t.published_population, "published_mrscore": t.published_mrscore,
                    "questions": {s: getattr(t, f"n_{s}", 0) for s in ("dev", "validation", "test")}}

        return [
            {"name": c.name, "slug": c.slug,
             "subcategories": [{"name": s.name, "slug": s.slug, "topics": [topic(t) for t in s.topics.all()]}
                               for s in c.subcategories.all()]}
            for c in categories
        ]
