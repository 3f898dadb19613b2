"""The columns of the results tables' CSV downloads (written by leaderboard.core.csv)."""
LEADERBOARD_COLUMNS = ["rank", "tied", "hub_id", "revision", "precision", "params", "size_class", "model_type",
                       "flagged", "possible_contamination", "reported", "source", "run_id", "n", "correct",
                       "accuracy", "ci95_low", "ci95_high", "ladder_note", "test_accuracy", "test_ci95_low",
                       "test_ci95_high", "test_grid", "delta", "order_spread", "latency_s", "peak_memory_bytes",
                       "energy_j_per_question", "template", "chat_template", "submitted_at", "scored_at"]


def leaderboard_csv(rows, *, categories):
    """(columns, rows) of the leaderboard CSV: a `category:<slug>` column per category (open splits)."""
    names = [f"category:{slug}" for slug in categories]

    def flat(row):
        cells = row.get("categories") or {}
        return {**row, **{f"category:{slug}": cells.get(slug) for slug in categories}}

    return LEADERBOARD_COLUMNS + names, (flat(row) for row in rows)


MODEL_COLUMNS = ["hub_id", "run_id", "benchmark", "benchmark_version", "split", "shots", "revision", "precision",
                 "variant", "level", "key", "name", "n", "correct", "accuracy", "ci95_low", "ci95_high"]
HISTORY_COLUMNS = ["run_id", "benchmark", "benchmark_version", "split", "shots", "variant", "revision", "precision",
                   "scored_at", "n", "correct", "accuracy", "ci95_low", "ci95_high", "previous_run_id",
                   "accuracy_change"]
TOPIC_COLUMNS = ["hub_id", "revision", "precision", "run_id", "benchmark", "split", "shots", "variant", "topic",
                 "topic_slug", "n", "correct", "accuracy", "ci95_low", "ci95_high"]
