"""A run's results as lm-evaluation-harness results JSON: the API endpoint and `manage.py export_results`."""
import csv
import io
import json
import math

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results.models import Level, ResultAggregate
from leaderboard.submissions.models import ModelEntry
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def _doc(client, run):
    response = client.get(reverse("api-run-lm-eval", args=[run.pk]))
    assert response.status_code == 200, response.content
    return response.json()


def test_it_works(client, make_run):
    run = make_run("org/alpha", 300, variants=("original", "R1"), extra_correct={"R1": 100})
    doc = _doc(client, run)
    results = doc["results"]
    topics = {a.key: a for a in ResultAggregate.objects.filter(result__run=run, variant="original",
                                                               level=Level.TOPIC)}
    assert len(results) == 1 + 9 + 80 and len(doc["groups"]) == 1 + 9
    overall = results["mobile_mmlu"]
    assert overall["acc,none"] == 300 / 480 and overall["sample_len"] == 480  # primary variant, not R1
    # Every topic is a task with the harness's metric keys, figures equal to the stored aggregates.
    tasks = [name for name in results if name not in doc["groups"]]
    assert len(tasks) == 80 and all(doc["n-samples"][t]["original"] == results[t]["sample_len"] for t in tasks)
    elementary = results["mobile_mmlu_elementary_mathematics"]
    agg = next(a for a in topics.values() if a.name == elementary["alias"])
    p = agg.correct / agg.n
    assert elementary["acc,none"] == p and elementary["acc_stderr,none"] == pytest.approx(
        math.sqrt(p * (1 - p) / (agg.n - 1)))
    # Groups: the benchmark over 9 categories, each category over its topics.
    assert len(doc["group_subtasks"]["mobile_mmlu"]) == 9
    assert sorted(t for g in doc["group_subtasks"]["mobile_mmlu"] for t in doc["group_subtasks"][g]) == sorted(tasks)
    assert doc["n-shot"]["mobile_mmlu"] == 0 and doc["higher_is_better"]["mobile_mmlu"] == {"acc": True}
    assert doc["versions"]["mobile_mmlu"] == float(run.benchmark_version.number)
    assert doc["config"]["model_args"] == f"pretrained=org/alpha,revision={'a' * 40},dtype=bfloat16"
    assert doc["config"]["model"] == "hf" and doc["model_name"] == "org/alpha"
    provenance = doc["mobile_mmlu_leaderboard"]
    assert provenance["run_id"] == run.pk and provenance["variant"] == "original"


def test_it_reads_with_the_harness_table_printer(client, make_run):
    """The harness's own `make_table` (what `lm_eval` prints) accepts the document."""
    utils = pytest.importorskip("lm_eval.utils")
    doc = _doc(client, make_run("org/alpha", 300))
    table = utils.make_table(doc)
    assert "Elementary Mathematics" in table and f"{300 / 480:.4f}" in table
    assert "Mobile-MMLU" in utils.make_table(doc, "groups")


def test_it_handles_the_sealed_split(client, make_run):
    run = make_run("org/alpha", 301, split="test")
    response = client.get(reverse("api-run-lm-eval", args=[run.pk]))
    doc = response.json()
    assert list(doc["results"]) == ["mobile_mmlu"] and "groups" not in doc and doc["group_subtasks"] == {}
    figure = doc["results"]["mobile_mmlu"]
    assert figure["acc,none"] == 0.62 and figure["acc,none"] != 301 / 480  # on the split's 2-point grid
    # The stderr comes from the rounded figure, so it cannot give the exact count back.
    p = figure["acc,none"]
    assert figure["acc_stderr,none"] == pytest.approx(math.sqrt(p * (1 - p) / 479))
    assert "sealed" in doc["mobile_mmlu_leaderboard"]["note"]
    assert_no_sealed_content(response.content.decode())


def test_it_handles_hidden_and_unknown_runs(client, make_run):
    hidden = make_run("org/hidden", 300)
    EvaluationRun.objects.filter(pk=hidden.pk).update(hidden=True)
    banned = make_run("org/banned", 300)
    ModelEntry.objects.filter(hub_id="org/banned").update(hidden=True)
    for run_id in (hidden.pk, banned.pk, 999_999):
        assert client.get(reverse("api-run-lm-eval", args=[run_id])).status_code == 404


def test_export_command_works(make_run, tmp_path, capsys):
    first = make_run("org/alpha", 240)
    second = make_run("org/alpha", 300, revision="b" * 40)
    call_command("export_results", "--run", str(second.pk), verbosity=0)
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"]["mobile_mmlu"]["acc,none"] == 300 / 480
    target = tmp_path / "alpha.json"
    call_command("export_results", "--model", "org/alpha", "--output", str(target), verbosity=0)
    docs = json.loads(target.read_text())
    assert [d["mobile_mmlu_leaderboard"]["run_id"] for d in docs] == [first.pk, second.pk]


def test_export_command_writes_csv(make_run, capsys):
    run = make_run("=org/alpha", 300)
    call_command("export_results", "--model", "=org/alpha", "--format", "csv", verbosity=0)
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 1 + 9 + 27 + 80 and rows[0]["hub_id"] == "'=org/alpha"
    overall = next(r for r in rows if r["level"] == "overall")
    assert (overall["run_id"], overall["correct"], overall["n"]) == (str(run.pk), "300", "480")


def test_export_command_handles_the_sealed_split_and_bad_input(make_run, capsys):
    run = make_run("org/alpha", 301, split="test")
    call_command("export_results", "--run", str(run.pk), "--format", "csv", verbosity=0)
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["level"] for r in rows] == ["overall"] and rows[0]["correct"] == ""
    assert_no_sealed_content(out)
    with pytest.raises(CommandError, match="^NO_PUBLISHED_RESULTS: "):
        call_command("export_results", "--run", "999999", verbosity=0)
    with pytest.raises(CommandError, match="^NO_PUBLISHED_RESULTS: "):
        call_command("export_results", "--model", "org/nobody", verbosity=0)


def test_export_command_has_help():
    from leaderboard.results.management.commands.export_results import Command

    text = Command().create_parser("manage.py", "export_results").format_help()
    assert "--run" in text and "--model" in text and "lm-eval" in text and "--output" in text
