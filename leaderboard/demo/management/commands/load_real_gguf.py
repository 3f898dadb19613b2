import time

from django.core.management.base import BaseCommand

from evaluator.real_gguf import real_gguf_file
from leaderboard.core.cli import add_switches, refused
from leaderboard.demo.real_model import (
    DEMO_REAL_MODELS, demo_version, hub_cache_place, real_gguf_facts, real_gguf_register, real_gguf_run_create,
    real_gguf_run_done,
)
from leaderboard.evaluations.display import public_summary
from leaderboard.hub.errors import SubmissionRefused
from leaderboard.scoring.management.commands.evaluate import run_here


class Command(BaseCommand):
    help = ("Put the demo's real model on the On-device board: Gemma 3 270M Q4_K_M's published GGUF file (from its "
            "package, sha256-checked) read by GGUF intake's checks, registered as a GGUF file entry, and evaluated "
            "on llama.cpp on the demo bank's validation split with its cost profile (ONDEVICE_PROFILE_*). Needs the "
            "llama.cpp environment (.venv-llamacpp) and load_demo first.")

    def add_arguments(self, parser):
        add_switches(parser, {
            "--skip-if-done": "print the file's earlier successful run instead of running it again",
            "--register-only": "read, check and register the file, and place it for the worker's download; no run",
        })

    def handle(self, *args, **o):
        version = demo_version()
        if version is None:
            raise refused("NO_QUESTIONS", "the demo bank is not loaded.", "Run load_demo first.")
        for model in DEMO_REAL_MODELS:
            start = time.perf_counter()
            try:
                path = real_gguf_file(model)
            except RuntimeError as exc:
                raise refused("NO_REAL_MODEL", str(exc), "run it in .venv-llamacpp (./dev.sh serve builds it)") from None
            try:
                facts = real_gguf_facts(model, path)
            except SubmissionRefused as exc:  # the intake's refusal, as a submission of the file would get
                raise refused(exc.code, f"{model.hub_id}: {exc.message}", exc.hint) from None
            entry = real_gguf_register(facts)
            hub_cache_place(model, path)
            self.stdout.write(f"{entry.hub_id}: {facts.architecture}, {facts.quantization} from its tensors, "
                              f"{facts.params:,} parameters, vocabulary {facts.vocab_size:,}, revision "
                              f"{facts.revision_sha[:12]} (the demo's)")
            self.stdout.write(f"file: {path}")  # dev.sh measures it with llama-bench for its device report
            if o["register_only"]:
                continue
            run = real_gguf_run_done(entry, version) if o["skip_if_done"] else None
            if run is None:
                run = real_gguf_run_create(entry, facts, version)
                run_here(run, device="cpu", progress=o["verbosity"] > 0)
                run.refresh_from_db()
            figures = public_summary(split=run.split, summary=run.summary)
            profile = (run.efficiency or {}).get("ondevice") or {}
            speed = (profile.get("tg") or {}).get("tokens_per_s")
            self.stdout.write(f"{entry.hub_id} {version} {run.split} accuracy {figures['accuracy']}% "
                              f"(n={figures['n']}, invented questions), generation "
                              f"{f'{speed:.1f}' if speed else '–'} tokens/s ({profile.get('label') or 'no profile'}), "
                              f"run {run.pk}, {time.perf_counter() - start:.0f} s")
