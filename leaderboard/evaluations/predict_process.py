"""The prediction process a GPU worker task starts for one claimed run (see runner.py for why).

    python -m leaderboard.evaluations.predict_process RUN_ID ATTEMPT OUTCOME_FILE

It inherits the worker's environment (settings module, database role, device) and writes its outcome
as JSON to OUTCOME_FILE; the exit status is 0 whenever an outcome was written.
"""
import signal
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    run_id, attempt, outcome_file = int(argv[0]), int(argv[1]), Path(argv[2])
    import django

    django.setup()  # a bare interpreter: the app's modules import only once Django is set up
    from leaderboard.core.logging import log_context
    from leaderboard.evaluations.failures import Stopped
    from leaderboard.evaluations.runner import predict_claimed

    def stop(signum, frame):  # a cancel, a time limit: unwind, so `finally` shuts the engine down
        raise Stopped(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    with log_context(run_id=run_id):
        outcome = predict_claimed(run_id=run_id, attempt=attempt)
    outcome_file.write_text(outcome.to_json())
    return 0


if __name__ == "__main__":  # vLLM's engine processes are spawned and re-import this module: guard it
    sys.exit(main(sys.argv[1:]))
