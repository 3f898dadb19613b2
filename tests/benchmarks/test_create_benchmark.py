"""`manage.py create_benchmark`: a benchmark with its own taxonomy (MMLU, ...), then import and judge it."""
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.benchmarks.models import Benchmark, Question, Topic
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db


def write_mmlu(tmp_path):
    taxonomy = tmp_path / "mmlu_taxonomy.csv"
    taxonomy.write_text("category,subcategory,topic,hub_field\nSTEM,Math,Abstract Algebra,abstract_algebra\n"
                        "STEM,Physics,College Physics,college_physics\nHumanities,Law,Professional Law,professional_law\n")
    questions = tmp_path / "mmlu.jsonl"
    rows = [{"question_id": f"mmlu-{i}", "subject": ["abstract_algebra", "college_physics", "professional_law"][i % 3],
             "question": f"Sample MMLU question number {i}?", "options": ["w", "x", "y", "z"], "answer": "B"}
            for i in range(9)]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return taxonomy, questions


def test_it_works(tmp_path):
    taxonomy, questions = write_mmlu(tmp_path)
    out = io.StringIO()
    call_command("create_benchmark", "--slug", "mmlu", "--name", "MMLU", "--taxonomy", str(taxonomy), stdout=out)
    assert "3 topics" in out.getvalue()
    benchmark = Benchmark.objects.get(slug="mmlu")
    assert list(Topic.objects.filter(benchmark=benchmark).values_list("hub_field", flat=True)) == [
        "abstract_algebra", "college_physics", "professional_law"]
    assert benchmark.categories.count() == 2
    call_command("import_benchmark", "--benchmark", "mmlu", "--split", "validation", "--path", str(questions),
                 stdout=io.StringIO())
    assert Question.objects.filter(version__benchmark=benchmark).count() == 9
    out = io.StringIO()
    call_command("create_benchmark", "--slug", "mmlu", "--taxonomy", str(taxonomy), stdout=out)
    assert "nothing changed" in out.getvalue()


def test_it_takes_topics_from_a_question_file(tmp_path):
    _, questions = write_mmlu(tmp_path)
    call_command("create_benchmark", "--slug", "mmlu-pro", "--topics-from", str(questions), stdout=io.StringIO())
    assert Topic.objects.filter(benchmark__slug="mmlu-pro").count() == 3
    call_command("import_benchmark", "--benchmark", "mmlu-pro", "--split", "validation", "--path", str(questions),
                 stdout=io.StringIO())


def test_it_handles_bad_input(tmp_path, snapshot):
    taxonomy, _ = write_mmlu(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("name\nx\n")
    dup = tmp_path / "dup.csv"
    dup.write_text("topic\nLaw\nLaw\n")
    before = snapshot()

    def refused(*args):
        """The one problem of a refused create_benchmark."""
        with pytest.raises(CommandError) as info:
            call_command("create_benchmark", *args)
        refusal = refusal_of(info.value)
        assert refusal.code == "IMPORT_REFUSED" and info.value.returncode == 2
        (problem,) = refusal.problems
        return problem

    no_column = refused("--slug", "x", "--taxonomy", str(bad))
    assert (no_column.file, no_column.row) == (str(bad), 1) and "'topic'" in no_column.message
    twice = refused("--slug", "x", "--taxonomy", str(dup))
    assert twice.file == str(dup) and "'Law'" in twice.message
    not_slug = refused("--slug", "Not A Slug", "--taxonomy", str(taxonomy))
    assert not_slug.file == "--slug" and "'Not A Slug'" in not_slug.message and "'not-a-slug'" in not_slug.hint
    taken = refused("--slug", "mobile-mmlu", "--taxonomy", str(taxonomy))
    assert taken.file == "--slug" and "'mobile-mmlu'" in taken.message
    assert snapshot() == before
