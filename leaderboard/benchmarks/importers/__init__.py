"""Question-bank importers: read files (hub folder, CSV, JSONL, Parquet, answer keys), validate, and
hand clean questions to ``leaderboard.benchmarks.services.benchmark_import``."""
