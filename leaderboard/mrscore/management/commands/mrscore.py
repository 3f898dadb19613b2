"""Score every question of a benchmark with an LLM judge (Mobile Relevance Score), resumably."""
import json

from django.core.management.base import BaseCommand, CommandError

from evaluator.judges import JudgeError

from leaderboard.core.cli import add_engine_arguments, add_switches
from leaderboard.core.progress import CountProgressBar
from leaderboard.mrscore import selectors, services
from leaderboard.mrscore.models import JobStatus


class Command(BaseCommand):
    help = ("Judge every question of a benchmark with the Mobile-MMLU Appendix D prompt and store per-question "
            "MRScores, topic means with 95%% intervals, Table 9 bins and the comparison with the paper. "
            "--judge is a local model (hub id or folder, run through the evaluator's backends) or, with --endpoint, "
            "the model name served by an OpenAI-compatible chat-completions endpoint (API key from the environment "
            "variable named by --api-key-env). Runs in this process with a progress bar, or with --enqueue on the "
            "Celery queue (gpu for a local judge, default for an endpoint). Running the same command again resumes "
            "an unfinished job: finished chunks are not judged again.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="benchmark slug (mobile-mmlu, mmlu, ...)")
        parser.add_argument("--judge", help="local model (hub id or folder) or the endpoint's model name")
        parser.add_argument("--revision", default="", help="judge revision (hub commit sha); recorded")
        parser.add_argument("--endpoint", default="", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
        parser.add_argument("--splits", default="", help="comma-separated (default: every imported split; the "
                            "sealed test split is left out for an endpoint off this host/network)")
        parser.add_argument("--include-sealed", action="store_true",
                            help="also send the sealed test questions to a remote endpoint")
        parser.add_argument("--chunk-size", type=int, default=services.DEFAULT_CHUNK_SIZE)
        local = parser.add_argument_group("local judge")
        add_engine_arguments(local)
        local.add_argument("--chat-template", default="auto", choices=["auto", "on", "off"])
        http = parser.add_argument_group("endpoint judge")
        http.add_argument("--api-key-env", default="MRSCORE_JUDGE_API_KEY",
                          help="environment variable holding the API key (read by the worker; never stored)")
        http.add_argument("--concurrency", type=int, default=8)
        add_switches(http, {"--no-logprobs": "do not ask the endpoint for log-probs"})
        add_switches(parser, {
            "--demo-judge": "mark the judge as a demo model (no comparison with the paper)",
            "--enqueue": "send the job to the Celery queue and return",
            "--force": "start a new job even if an identical one exists",
            "--takeover": "resume a job marked running whose process is gone (before its lease expires)",
        })
        parser.add_argument("--show", type=int, metavar="JOB", help="print a job's summary and exit")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **o):
        if o["show"]:
            job = selectors.job_get(job_id=o["show"])
            if job is None:
                raise CommandError(f"no MRScore job {o['show']}", returncode=2)
            return self._print(job, as_json=o["json"])
        if not o["benchmark"] or not o["judge"]:
            raise CommandError("--benchmark and --judge are required (or --show JOB)", returncode=2)
        try:
            spec = services.judge_spec_from_options(
                model=o["judge"], endpoint=o["endpoint"], revision=o["revision"], demo=o["demo_judge"] or None,
                backend=o["backend"], device=o["device"], dtype=o["dtype"], batch_size=o["batch_size"],
                mode=o["mode"], chat_template=o["chat_template"], api_key_env=o["api_key_env"],
                concurrency=o["concurrency"], logprobs=not o["no_logprobs"])
            splits = [s.strip() for s in o["splits"].split(",") if s.strip()] or None
            job, created = services.job_create(benchmark_slug=o["benchmark"], spec=spec, splits=splits,
                                               chunk_size=o["chunk_size"], include_sealed=o["include_sealed"],
                                               force=o["force"])
        except (services.MRScoreConfigError, JudgeError) as exc:
            raise CommandError(str(exc), returncode=2) from None

        if job.status == JobStatus.SUCCEEDED:
            self.stderr.write(f"job {job.pk} already scored this benchmark with this judge; --force to judge again.")
            return self._print(job, as_json=o["json"])
        if not created:
            done = len(selectors.job_chunk_indices(job=job))
            self.stderr.write(f"resuming job {job.pk} ({job.status}, {done} chunk(s) already judged)")
            if job.status == JobStatus.FAILED:
                services.job_requeue(job=job, reset_attempts=True)
        if o["enqueue"]:
            if job.status == JobStatus.RUNNING and not o["takeover"]:
                raise CommandError(f"job {job.pk} is running (lease until {job.lease_expires_at}); --takeover "
                                   "if its worker is gone", returncode=1)
            if job.status == JobStatus.RUNNING:  # the operator's takeover: a fresh count, as a resumed failed job
                services.job_requeue(job=job, reset_attempts=True)
            services.job_enqueue(job=job)
            self.stdout.write(f"queued MRScore job {job.pk} on the {services.job_queue_name(job=job)} queue")
            return
        if not services.job_claim(job=job, takeover=o["takeover"]):
            raise CommandError(f"job {job.pk} is {job.status} elsewhere (lease until {job.lease_expires_at}); "
                               "--takeover if its process is gone", returncode=1)
        try:
            judge = services.job_build_judge(job=job)
            with CountProgressBar(unit="q", enabled=o["verbosity"] > 0, label=f"MRScore job {job.pk}") as bar:
                services.job_run(job=job, judge=judge, progress=bar.update)
            job = services.job_finalize(job=job)
        except services.JobCancelled:
            raise CommandError(f"job {job.pk} was cancelled", returncode=1) from None
        except (JudgeError, services.JobStateError, OSError, ValueError, RuntimeError) as exc:
            reason = services.safe_reason(job=job, exc=exc)
            services.job_fail(job=job, reason=reason)
            raise CommandError(f"MRScore job {job.pk} stopped: {reason}. Run the same command again to resume.",
                               returncode=1) from None
        self._print(job, as_json=o["json"])

    def _print(self, job, *, as_json=False):
        provenance = selectors.provenance(job=job)
        s = job.summary or {}
        if as_json:
            self.stdout.write(json.dumps({"provenance": provenance, "status": job.status, "summary": s},
                                         indent=2, default=str))
            return
        p = provenance
        self.stdout.write(f"MRScore job {job.pk} [{job.status}] {p['benchmark']} v{p['benchmark_version']} "
                          f"({', '.join(p['splits'])})")
        self.stdout.write(f"judge {p['judge_model']} rev {p['judge_revision'] or '-'} via {p['endpoint_kind']}; "
                          f"prompt {p['prompt_version']} sha256 {p['prompt_hash'][:12]}; scoring "
                          f"{p['scoring'] or '-'}; judged {p['judged_at'] or '-'}")
        if not s:
            return
        ci = s.get("ci95") or [None, None]
        mean = f"{s['mean']:.2f}" if s.get("mean") is not None else "-"
        ci_text = f" (95% CI {ci[0]:.2f}-{ci[1]:.2f})" if ci[0] is not None else ""
        self.stdout.write(f"benchmark MRScore {mean}{ci_text} over {s['n_scored']} of {s['n']} questions; "
                          f"unparsable {s['n_unparsable']} ({100 * (s['unparsable_rate'] or 0):.1f}%)")
        self.stdout.write("bins: " + ", ".join(f"{label} {b['n']}" for label, b in s.get("bins", {}).items()))
        if s.get("score_mass"):
            self.stdout.write(f"probability on score tokens: mean {s['score_mass']['mean']:.3f}, "
                              f"{s['score_mass']['n_below_half']} question(s) below 0.5")
        c = s.get("comparison") or {}
        if c.get("shown"):
            self.stdout.write(f"Spearman vs paper Table 10: rho {c['rho']:.3f} (95% CI {c['ci95'][0]:.2f}-"
                              f"{c['ci95'][1]:.2f}) over {c['n_topics']} topics")
        elif c:
            self.stdout.write(f"no comparison with the paper: {c.get('reason')}")
