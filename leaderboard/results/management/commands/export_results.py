"""Export published results: one run (--run) or every visible run of a model (--model), as
lm-evaluation-harness results JSON or as the model CSV. The API's display rules apply (sealed
runs: overall figure only, to 0.1 point); hidden runs and models are not exported."""
import contextlib
import json

from django.core.management.base import BaseCommand
from django.core.serializers.json import DjangoJSONEncoder

from leaderboard.core.cli import refused
from leaderboard.core.csv import csv_lines
from leaderboard.core.progress import tqdm_progress
from leaderboard.results import csv as results_csv
from leaderboard.results import selectors
from leaderboard.results.lm_eval_json import lm_eval_results


class Command(BaseCommand):
    help = ("Export a run's results (--run ID) or all of a model's visible runs (--model HUB_ID). "
            "--format lm-eval (default) writes lm-evaluation-harness's results JSON: one document for --run, "
            "a JSON list of documents (oldest run first) for --model. --format csv writes the model CSV columns "
            "(one row per variant and taxonomy cell). Sealed (test) runs carry only the overall accuracy to "
            "0.1 point. Writes to --output FILE or stdout.")

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--run", type=int, metavar="ID", help="evaluation run id")
        which.add_argument("--model", metavar="HUB_ID", help="every visible run of this model")
        parser.add_argument("--benchmark", help="with --model: only this benchmark (slug)")
        parser.add_argument("--split", choices=["validation", "test"], help="with --model: only this split")
        parser.add_argument("--format", choices=["lm-eval", "csv"], default="lm-eval")
        parser.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")

    def handle(self, *args, **o):
        results = self._results(o)
        progress = tqdm_progress(enabled=o["verbosity"] > 0)
        items = progress(results, description="exporting runs", total=len(results))
        with contextlib.ExitStack() as stack:
            if o["output"] == "-":
                def write(text):
                    self.stdout.write(text, ending="")
            else:
                write = stack.enter_context(open(o["output"], "w", encoding="utf-8", newline="")).write
            if o["format"] == "csv":
                rows = (row for result in items for row in selectors.result_csv_rows(result=result))
                for line in csv_lines(results_csv.MODEL_COLUMNS, rows):
                    write(line)
            else:
                documents = [lm_eval_results(result=result) for result in items]
                payload = documents[0] if o["run"] is not None else documents
                write(json.dumps(payload, indent=2, ensure_ascii=False, cls=DjangoJSONEncoder) + "\n")
        if o["output"] != "-":
            self.stderr.write(f"wrote {len(results)} run(s) to {o['output']}")

    def _results(self, o):
        if o["run"] is not None:
            if o["benchmark"] or o["split"]:
                raise refused("OPTIONS_CONFLICT", "--benchmark and --split go with --model, not with --run.",
                              "Give --run alone, or --model with --benchmark and --split.")
            result = selectors.result_get(run_id=o["run"])
            if result is None:
                raise refused("NO_PUBLISHED_RESULTS", f"run {o['run']} has no published results.",
                              "The run is unknown, not finished, or hidden; manage.py runs lists the runs.")
            return [result]
        results = list(reversed(selectors.model_results(hub_id=o["model"])))  # oldest first
        if o["benchmark"]:
            results = [r for r in results if r.benchmark.slug == o["benchmark"]]
        if o["split"]:
            results = [r for r in results if r.split == o["split"]]
        if not results:
            raise refused("NO_PUBLISHED_RESULTS", f"no published results for {o['model']!r} with these filters.",
                          "Check the model id's spelling, or drop --benchmark / --split.")
        return results
