"""The paper's published accuracies (Table 2, Tables 3-4), loaded by a data migration.

Takes the model class as an argument so the migration can pass its historical model.
"""
from leaderboard.benchmarks.taxonomy import REFERENCE_DIR, _read_csv

TABLE2_CSV = REFERENCE_DIR / "mobile_mmlu_paper_table2.csv"
ORDER_BIAS_CSV = REFERENCE_DIR / "mobile_mmlu_paper_order_bias.csv"
TABLE2_COLUMNS = {"mmlu_0shot": "mmlu", "mmlu_pro_0shot": "mmlu-pro", "mobile_mmlu_0shot": "mobile-mmlu",
                  "mobile_mmlu_pro_0shot": "mobile-mmlu-pro"}
ORDER_BIAS_COLUMNS = {"original": "original", "fixed_A": "fixed-A", "fixed_B": "fixed-B", "fixed_C": "fixed-C",
                      "fixed_D": "fixed-D", "random_1": "R1", "random_2": "R2", "random_3": "R3", "random_4": "R4"}
# Size of the full published set, the n behind the paper's accuracies (used only when reported
# rows are ranked together with measured ones on request).
PUBLISHED_N = {"mobile-mmlu": 16186, "mobile-mmlu-pro": 9497}


def reported_rows():
    for row in _read_csv(TABLE2_CSV):
        for column, slug in TABLE2_COLUMNS.items():
            yield {"source": "paper-table2", "benchmark_slug": slug, "hub_id": row["model"], "group": row["group"],
                   "shots": 0, "variant": "original", "accuracy": float(row[column])}
    for row in _read_csv(ORDER_BIAS_CSV):
        for column, variant in ORDER_BIAS_COLUMNS.items():
            yield {"source": "paper-order-bias", "benchmark_slug": row["benchmark"], "hub_id": row["model"],
                   "group": "", "shots": 0, "variant": variant, "accuracy": float(row[column])}


def load_reported(ReportedResult):
    for row in reported_rows():
        key = {k: row[k] for k in ("source", "benchmark_slug", "hub_id", "shots", "variant")}
        ReportedResult.objects.update_or_create(**key, defaults={"group": row["group"], "accuracy": row["accuracy"]})
