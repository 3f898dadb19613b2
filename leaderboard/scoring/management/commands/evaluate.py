"""Evaluate a model on a benchmark split synchronously (no queue) and store the run."""
import json
import os
import signal

from django.core.management.base import BaseCommand

from evaluator.protocols import PROTOCOLS
from evaluator.variants import parse_variants
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS, Split
from leaderboard.core.cli import add_engine_arguments, add_switches, refusal_of, refused
from leaderboard.core.progress import CountProgressBar
from leaderboard.evaluations import failures, lifecycle, runner, selectors, services
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.evaluations.display import public_summary
from leaderboard.hub.ids import HubIdError, validate_hub_id
from leaderboard.scoring.services import run_score
from leaderboard.submissions.models import ModelEntry, Precision
from leaderboard.submissions.ondevice_variants import VARIANT_QUANTS, variant_entry_for


class Command(BaseCommand):
    help = ("Evaluate a model (hub id or local folder) on a benchmark split in this process, with a progress "
            "bar, and store the run. The sealed test split is scored here with the answer key and only its "
            "rounded overall figure is printed.")

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, help="hub id (org/name) or a local model folder")
        parser.add_argument("--revision", default="", help="hub branch, tag or commit sha")
        parser.add_argument("--benchmark", default="mobile-mmlu")
        parser.add_argument("--split", default=Split.VALIDATION, choices=[Split.VALIDATION, Split.TEST])
        add_engine_arguments(parser)
        parser.add_argument("--template", default="default")
        parser.add_argument("--shots", type=int, default=0)
        parser.add_argument("--variants", default="original", help="original, fixed-A..D, R1..R4, all, fixed, random")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--quantize", default="", choices=["", *VARIANT_QUANTS],
                            help="evaluate the on-device variant of --model (a model on the board) that llama.cpp's "
                                 "converter and quantizer make here (the model's page lists it as org/model@Q4_K_M); "
                                 "open splits only")
        parser.add_argument("--protocol", default="", choices=["", *sorted(PROTOCOLS)],
                            help="a publisher's own protocol in place of --template/--shots/--mode: mmlu-pro-cot "
                                 "(5-shot chain of thought; unread answers wrong) or mmlu-pro-cot-guess (unread "
                                 "answers guessed as MMLU-Pro's script does); ranked on boards of its own")
        add_switches(parser, {
            "--chat-template": "wrap prompts in the tokenizer's chat template",
            "--probe": "also run the TS-Guessing memorization probe (one short generation per question; "
                       "open splits only)",
            "--no-efficiency": "skip the efficiency measurements",
            "--line": "print one summary line instead of JSON",
            "--skip-if-done": "print an earlier successful run with the same settings instead of running again",
        })

    def handle(self, *args, **o):
        benchmark = bench_selectors.benchmark_get(slug=o["benchmark"])
        version = benchmark and bench_selectors.version_current(benchmark=benchmark)
        if version is None:
            raise refused("NO_QUESTIONS", f"benchmark {o['benchmark']!r} has no imported questions.",
                          "Run import_benchmark or load_demo first.")
        variants = o["variants"].split(",")
        model_ref, engine = self._checked_model(o["model"]), {"backend": o["backend"], "precision": o["dtype"]}
        if o["quantize"]:
            model_ref, engine = self._variant(o["model"], o["quantize"])
        if o["skip_if_done"]:
            earlier = selectors.run_find_succeeded(
                version=version, split=o["split"], model_ref=model_ref, template=o["template"], shots=o["shots"],
                variants=list(parse_variants(variants)), seed=o["seed"], mode=o["mode"],
                use_chat_template=o["chat_template"], protocol=o["protocol"])
            if earlier is not None:
                return self._print(earlier, version, line=o["line"])
        try:
            run = services.run_create(
                version=version, split=o["split"], model_ref=model_ref, model_revision=o["revision"],
                template=o["template"], shots=o["shots"],
                variants=variants, seed=o["seed"], mode=o["mode"],
                use_chat_template=o["chat_template"], probe=o["probe"], protocol=o["protocol"], **engine,
            )
        except services.RunConfigError as exc:
            raise refusal_of(exc) from None
        run_here(run, device=o["device"], batch_size=o["batch_size"], measure=not o["no_efficiency"],
                 progress=o["verbosity"] > 0)
        self._print(run, version, line=o["line"])

    @staticmethod
    def _checked_model(model: str) -> str:
        """--model as a run keeps it, refused before any run is made: an existing local folder whose path fits the
        run's column, else a hub id by the hub's rules (a name no loader can take would be stored as a failed run)."""
        fits = len(model) <= EvaluationRun._meta.get_field("model_ref").max_length
        if "\x00" not in model and fits and os.path.isdir(model):
            return model
        try:
            return validate_hub_id(model)
        except HubIdError as exc:
            raise refused(exc.code, f"--model {exc.message}", "name a hub id (org/name) or an existing local "
                          "model folder") from None

    @staticmethod
    def _variant(hub_id: str, quant: str) -> tuple[str, dict]:
        """(model_ref, run_create's settings) of `hub_id`'s `quant` file, made by the worker's pipeline."""
        base = ModelEntry.objects.filter(hub_id__iexact=hub_id, gguf_file="").first()
        if base is None:
            raise refused("NOT_ON_BOARD", f"--quantize makes a variant of a 16-bit model on the board; {hub_id!r} "
                          "is not one.", "submit the model first (or load_demo for demo/...)")
        entry = variant_entry_for(base=base, quant=quant)
        return entry.hub_id, {"backend": "llamacpp", "precision": Precision.GGUF,
                              "gguf_recipe": {"quant": quant, "source": base.hub_id}}

    def _print(self, run, version, *, line=False):
        figures = public_summary(split=run.split, summary=run.summary)
        if line:
            low, high = figures["ci95"]
            self.stdout.write(f"{run.model_ref:<28} {version} {run.split:<10} accuracy {figures['accuracy']}% "
                              f"(95% CI {low}-{high}, n={figures['n']}), run {run.pk}")
            return
        self.stdout.write(json.dumps({"run": run.pk, "model": run.model_ref, "benchmark": str(version),
                                      "split": run.split, **figures}, indent=2))


def run_here(run, *, device: str, batch_size=None, measure: bool = True, progress: bool = False):
    """Predict and score a run made for this process (never published to a worker: LOCAL_QUEUE), as `evaluate` does;
    also the demo's real GGUF file (leaderboard/demo). The lease is renewed while this process loads and predicts, as
    a GPU worker's is; a cancel from the admin interrupts it. A failure is recorded on the run and refused with its
    code."""
    EvaluationRun.objects.filter(pk=run.pk).update(queue=lifecycle.LOCAL_QUEUE)
    services.run_claim(run=run)
    beat = runner.Heartbeat(run, on_lost=lambda: os.kill(os.getpid(), signal.SIGINT))
    backend, loading = None, True
    try:
        inputs = selectors.run_engine_inputs(run=run)
        backend = runner.load_backend(run, device=device, batch_size=batch_size, inputs=inputs)
        loading = False
        with CountProgressBar(unit="item", enabled=progress, label=f"run {run.pk}") as bar:
            services.run_predict(run=run, backend=backend, progress=bar.update, measure=measure,
                                 inputs=inputs, ondevice=runner.ondevice_profiler(run, backend))
        run_score(run=run)
    except BaseException as exc:  # Ctrl-C included: the run never stays RUNNING
        failed = services.run_fail(run=run, exc=exc, during_load=loading)
        # A sealed run's failure names the exception's type only (its message may quote a prompt).
        message = ("interrupted" if isinstance(exc, KeyboardInterrupt)
                   else failures.detail(exc, sealed=run.split in SEALED_SPLITS))
        raise refused(failed.failure_code, f"run {run.pk} failed: {message}", failures.hint(failed.failure_code),
                      returncode=1) from None
    finally:
        beat.stop()
        if backend is not None and hasattr(backend, "close"):  # vLLM's engine processes would otherwise keep the interpreter alive
            backend.close()
