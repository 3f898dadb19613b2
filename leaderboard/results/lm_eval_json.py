"""A run's results in lm-evaluation-harness's results-JSON shape (lm_eval 0.4.x `simple_evaluate` output).

Layout, as the harness writes it for MMLU: one task per topic (`mobile_mmlu_<topic>`), a group per
category and one for the benchmark, with `acc,none` / `acc_stderr,none` for the run's primary
variant. Task stderr is the harness's sample stderr, sqrt(p(1-p)/(n-1)); group figures follow its
size-weighted aggregation over the leaf tasks (accuracy = pooled correct / n, stderr pooled).

Sealed (test) runs follow display.py: only the benchmark figure, on its published grid, with a stderr
computed from that rounded figure; no per-category/topic tasks and no `correct` count.
Keys the harness writes that we cannot know (git_hash, tokenizer details, ...) are null.
"""
import math

from leaderboard.benchmarks.models import Topic
from leaderboard.evaluations import display
from leaderboard.evaluations.gguf_make import file_facts

from .models import Level
from .ondevice_facts import LLAMACPP, file_columns

METRIC = "acc"
FILTER = "none"
ACC, STDERR = f"{METRIC},{FILTER}", f"{METRIC}_stderr,{FILTER}"
MODEL_SOURCE = {"transformers": "hf", "vllm": "vllm"}  # the harness's names for these backends


def _task_stderr(correct: int, n: int):
    if n < 2:
        return "N/A"
    p = correct / n
    return math.sqrt(p * (1 - p) / (n - 1))


def _pooled_stderr(leaves):
    """lm_eval.api.metrics.pooled_sample_stderr over (correct, n) leaves."""
    if not leaves or any(n < 2 for _, n in leaves):
        return "N/A"
    total = sum(n for _, n in leaves)
    within = sum(n * (c / n) * (1 - c / n) for c, n in leaves)  # = (n-1) * stderr² * n per leaf
    return math.sqrt(within / (total - len(leaves)) / total)


def _name(text: str) -> str:
    return text.replace("-", "_").replace("/", "_").lower()


def _config(result, *, task, alias, dataset_name, tag):
    run, version = result.run, result.benchmark_version
    return {"task": task, "task_alias": alias, "tag": tag, "dataset_path": result.benchmark.source_repo or None,
            "dataset_name": dataset_name, "dataset_kwargs": {"revision": version.source_revision or None},
            "test_split": result.split, "fewshot_split": "dev", "num_fewshot": result.shots,
            "output_type": "multiple_choice", "repeats": 1, "should_decontaminate": False,
            "metric_list": [{"metric": METRIC, "aggregation": "mean", "higher_is_better": True}],
            "metadata": {"version": float(version.number), "variant": result.primary_variant,
                         "template": run.template, "template_hash": run.template_hash,
                         "dataset_hash": run.dataset_hash}}


def _gguf(result) -> dict:
    """A GGUF run's file for `config`: its name, sha256 (the first part's: the file's pin), type and bytes, and each
    part as the run pinned it (none for a file made here: `gguf_made_by`, its recipe, says how it was made); {} for a
    checkpoint (its commit sha pins it)."""
    if result.run.backend != LLAMACPP:
        return {}
    file = file_columns(result)
    return {"gguf_file": file["file"], "gguf_sha256": file["file_sha256"], "gguf_quantization": file["quantization"],
            "gguf_file_bytes": file["file_bytes"],
            "gguf_parts": [{k: part.get(k) for k in ("file", "size", "sha256")} for part in result.run.model_files or []],
            "gguf_made_by": (file_facts(result.run) or {}).get("made")}  # a file made here: its recipe


def _model_args(result, gguf) -> str:
    """lm-eval's model_args; a submitted GGUF file as the harness loads one: its repository and `gguf_file`."""
    if not gguf:
        return f"pretrained={result.hub_id},revision={result.revision},dtype={result.precision}"
    suffix = "/" + gguf["gguf_file"]
    repository = result.hub_id[:-len(suffix)] if result.hub_id.endswith(suffix) else result.hub_id
    return f"pretrained={repository},gguf_file={gguf['gguf_file']},revision={result.revision}"


def _header(result):
    run, model = result.run, result.model
    source = MODEL_SOURCE.get(run.backend, run.backend)
    gguf = _gguf(result)
    args = _model_args(result, gguf)
    started, finished = run.started_at, run.finished_at
    versions = run.library_versions or {}
    return {
        "config": {"model": source, "model_args": args,
                   "model_num_parameters": model.params if model else None, "model_dtype": result.precision,
                   "model_revision": result.revision, "model_sha": result.revision, "batch_size": None,
                   "batch_sizes": [], "device": None, "use_cache": None, "limit": None, "gen_kwargs": None,
                   "random_seed": run.seed, **gguf},
        "git_hash": None, "date": result.scored_at.timestamp(),
        "transformers_version": versions.get("transformers"), "lm_eval_version": None, "upper_git_hash": None,
        "model_source": source, "model_name": result.hub_id, "model_name_sanitized": result.hub_id.replace("/", "__"),
        "system_instruction": None, "system_instruction_sha": None, "fewshot_as_multiturn": False,
        "chat_template": None, "chat_template_sha": None, "task_hashes": {},
        "total_evaluation_time_seconds": str((finished - started).total_seconds()) if started and finished else None,
    }


def _provenance(result, note=""):
    run = result.run
    return {"run_id": run.pk, "benchmark": result.benchmark.slug, "benchmark_version": result.benchmark_version.number,
            "split": result.split, "sealed": display.is_sealed(result.split), "variant": result.primary_variant,
            "shots": result.shots, "backend": run.backend, "mode": run.mode, "use_chat_template": run.use_chat_template,
            "template": run.template, "template_hash": run.template_hash, "protocol": run.protocol,
            "dataset_hash": run.dataset_hash, "library_versions": run.library_versions or {}, "note": note}


def _sealed(result, base, overall):
    figure = display.cell(split=result.split, n=overall.n, correct=overall.correct) if overall else None
    acc = None if not figure or figure["accuracy"] is None else round(figure["accuracy"] / 100, 4)
    n = overall.n if overall else 0
    stderr = math.sqrt(acc * (1 - acc) / (n - 1)) if acc is not None and n > 1 else "N/A"
    name = result.benchmark.name
    results = {base: {"name": base, "alias": name, "sample_len": n, ACC: acc, STDERR: stderr}}
    return {"results": results, "group_subtasks": {},
            "configs": {base: _config(result, task=base, alias=name, dataset_name=None, tag=None)},
            "versions": {base: float(result.benchmark_version.number)}, "n-shot": {base: result.shots},
            "higher_is_better": {base: {METRIC: True}}, "n-samples": {base: {"original": n, "effective": n}},
            **_header(result), "mobile_mmlu_leaderboard": _provenance(result, display.SEALED_BREAKDOWN_NOTE)}


def lm_eval_results(*, result) -> dict:
    """The results document for one RunResult (its primary variant)."""
    base = _name(result.benchmark.slug)
    aggs = {(a.level, a.key): a for a in result.aggregates.filter(variant=result.primary_variant,
                                                                  level__in=[Level.OVERALL, Level.CATEGORY,
                                                                             Level.TOPIC])}
    if display.is_sealed(result.split):
        return _sealed(result, base, aggs.get((Level.OVERALL, "")))

    topics = (Topic.objects.filter(benchmark_id=result.benchmark_id).select_related("subcategory__category")
              .order_by("subcategory__category__order", "subcategory__order", "order"))
    results, configs, groups, members, categories = {}, {}, {}, {}, {}
    topic_names = {f"{base}_{_name(t.hub_field or t.slug)}" for t in topics}
    for topic in topics:
        agg = aggs.get((Level.TOPIC, topic.slug))
        if agg is None:
            continue
        category = topic.subcategory.category
        task = f"{base}_{_name(topic.hub_field or topic.slug)}"
        group = f"{base}_{_name(category.slug)}"
        if group in topic_names or group == base:
            group += "_category"
        categories[group] = category
        members.setdefault(group, []).append((task, agg))
        results[task] = {"name": task, "alias": topic.name, "sample_len": agg.n, ACC: agg.correct / agg.n,
                         STDERR: _task_stderr(agg.correct, agg.n)}
        configs[task] = _config(result, task=task, alias=topic.name, dataset_name=topic.hub_field, tag=group)

    def group_entry(name, alias, agg, leaves):
        n = sum(a.n for a in leaves)
        return {"name": name, "alias": alias, "sample_len": n, ACC: agg.correct / agg.n if agg and agg.n else None,
                STDERR: _pooled_stderr([(a.correct, a.n) for a in leaves]), "sample_count": {ACC: n}}

    all_leaves = [agg for tasks in members.values() for _, agg in tasks]
    overall = aggs.get((Level.OVERALL, ""))
    groups[base] = group_entry(base, result.benchmark.name, overall, all_leaves)
    for group, tasks in members.items():
        category = categories[group]
        groups[group] = group_entry(group, category.name, aggs.get((Level.CATEGORY, category.slug)),
                                    [agg for _, agg in tasks])
    ordered = {base: groups[base]}
    for group, tasks in members.items():
        ordered[group] = groups[group]
        ordered.update((task, results[task]) for task, _ in tasks)
    group_subtasks = {base: list(members), **{g: [t for t, _ in tasks] for g, tasks in members.items()}}
    names = list(ordered)
    version = float(result.benchmark_version.number)
    return {
        "results": ordered, "groups": groups, "group_subtasks": group_subtasks,
        "configs": dict(sorted(configs.items())),
        "versions": {name: version for name in sorted(names)}, "n-shot": {name: result.shots for name in sorted(names)},
        "higher_is_better": {name: {METRIC: True} for name in sorted(names)},
        "n-samples": {task: {"original": results[task]["sample_len"], "effective": results[task]["sample_len"]}
                      for task in results},
        **_header(result), "mobile_mmlu_leaderboard": _provenance(result),
    }
