"""Reads for evaluations: questions in the engine's format, run state, persisted chunks."""
from evaluator.engine import PlanMismatch
from evaluator.questions import Question as EngineQuestion

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.demo import DEMO_FAMILY_MODELS, DEMO_MODELS, demo_models_dir
from leaderboard.benchmarks.models import SEALED_SPLITS, BenchmarkVersion, Split

from .models import EvaluationRun, PredictionChunk


def _letters(answer: str) -> frozenset[str]:
    return frozenset(answer.split(","))


def engine_questions(*, version: BenchmarkVersion, split: str) -> list[EngineQuestion]:
    """The split as the engine sees it, in the published order. Sealed questions carry no answer: the predicting side
    never has it. `extra` is what the publisher's file carried beyond the question (MMLU-Pro's cot_content, the
    worked answers its protocol shows as exemplars; never in the sealed split) and `category`, the topic's name as
    published (MMLU-Pro's protocol names it in its header: "computer science", whose hub_field is computer_science).
    """
    sealed = split in SEALED_SPLITS
    rows = (version.questions.filter(split=split).order_by("position")
            .values_list("uid", "text", "options", "answer", "topic__hub_field", "topic__name", "extra"))
    return [EngineQuestion(question_id=uid, question=text, options=tuple(options),
                           answer=None if sealed else _letters(answer), topic=topic,
                           extra={**(extra or {}), "category": name})
            for uid, text, options, answer, topic, name, extra in rows]


def dev_exemplars(*, version: BenchmarkVersion) -> list[EngineQuestion]:
    return engine_questions(version=version, split=Split.DEV)


def run_engine_inputs(*, run: EvaluationRun) -> tuple[list[EngineQuestion], list[EngineQuestion] | None]:
    """A run's questions and, for a few-shot run, the dev split's exemplars (None for zero-shot)."""
    version = run.benchmark_version
    return (engine_questions(version=version, split=run.split),
            dev_exemplars(version=version) if run.shots else None)


def answer_key(*, version: BenchmarkVersion, split: str) -> dict[str, frozenset[str]]:
    """uid -> answer letters, decrypting the sealed split. Trusted environment only (needs the sealed key)."""
    rows = version.questions.filter(split=split).values_list("uid", "answer", "answer_sealed")
    if split in SEALED_SPLITS:
        return {uid: _letters(decrypt_answer(token)) for uid, _, token in rows}
    return {uid: _letters(answer) for uid, answer, _ in rows}


def model_location(*, model_ref: str) -> str:
    """Where to load a model from: the hub id itself, except the demo models (`demo/<name>`), which
    load_demo builds locally under var/demo/ (they are not on the hub)."""
    namespace, _, name = model_ref.partition("/")
    local = name in DEMO_MODELS or name in DEMO_FAMILY_MODELS
    if namespace == "demo" and local and (demo_models_dir() / name / "config.json").exists():
        return str(demo_models_dir() / name)
    return model_ref


def run_chunks(*, run: EvaluationRun) -> dict[int, list[dict]]:
    return dict(PredictionChunk.objects.filter(run=run).order_by("index").values_list("index", "rows"))


def run_chunks_of_plan(*, run: EvaluationRun) -> dict[int, list[dict]]:
    """The stored chunks to resume from. A chunk of another plan is never merged: PlanMismatch."""
    chunks = PredictionChunk.objects.filter(run=run).order_by("index").values_list("index", "fingerprint", "rows")
    out = {}
    for index, fingerprint, rows in chunks:
        if run.plan_fingerprint and fingerprint and fingerprint != run.plan_fingerprint:
            raise PlanMismatch(f"run {run.pk} has chunk {index} of another plan ({fingerprint[:12]}, not "
                               f"{run.plan_fingerprint[:12]}); it is not merged")
        out[index] = rows
    return out


def run_rows(*, run: EvaluationRun) -> list[dict]:
    return [row for rows in run_chunks(run=run).values() for row in rows]


def run_find_succeeded(*, version, split, model_ref, template, shots, variants, seed, mode, use_chat_template,
                       protocol=""):
    """An earlier successful run with exactly these settings on this dataset, if any (a protocol's run: of that
    protocol, whatever template, shots and mode were asked)."""
    settings = (dict(protocol=protocol) if protocol else
                dict(protocol="", template=template, shots=shots, mode=mode))
    return (EvaluationRun.objects.filter(
        benchmark_version=version, split=split, model_ref=model_ref, variants=variants, seed=seed,
        use_chat_template=use_chat_template, status="succeeded", **settings,
    ).order_by("-finished_at").first())


def ondevice_profile_of_file(*, run: EvaluationRun, threads: int, repeats: int, pp: int, tg: int):
    """(run id, profile) of another run's cost profile of the same GGUF file (the same parts, sizes and sha256s; a
    made file: the same sha256) measured with these settings, the newest; None if there is none (or the run has no
    pinned or made file)."""
    if run.model_files:
        same_file = {"model_files": run.model_files}
    elif (run.gguf_recipe or {}).get("sha256"):
        same_file = {"gguf_recipe__sha256": run.gguf_recipe["sha256"]}
    else:
        return None
    candidates = (EvaluationRun.objects.filter(backend="llamacpp", efficiency__has_key="ondevice", **same_file)
                  .exclude(pk=run.pk).order_by("-pk").values_list("pk", "efficiency__ondevice")[:20])
    for pk, profile in candidates:
        settings = (profile.get("threads"), profile.get("repeats"), (profile.get("pp") or {}).get("tokens"),
                    (profile.get("tg") or {}).get("tokens"))
        if not profile.get("error") and settings == (threads, repeats, pp, tg):
            return pk, profile
    return None
