"""Mobile-MMLU evaluation engine: prompts, backends, variants, scoring, metrics.

Nothing here imports Django, Celery or leaderboard (the GPU worker's Celery task is
leaderboard/evaluations/tasks.py). Heavy libraries (torch, transformers, vLLM) are imported
only when a backend is built.
"""
from .backends import available_backends, create_backend
from .engine import EvaluationResult, plan_evaluation, rescore_rows, run_evaluation
from .metrics import aggregate_counts, summarize
from .prompts import TEMPLATES, get_template, template_hash
from .questions import LETTERS, Question, QuestionFileError, load_questions, question_from_record
from .statistics import wilson_interval
from .variants import VARIANTS, make_view, parse_variants

__all__ = [
    "EvaluationResult", "LETTERS", "Question", "QuestionFileError", "TEMPLATES", "VARIANTS",
    "aggregate_counts", "available_backends", "create_backend", "get_template", "load_questions",
    "make_view", "parse_variants", "plan_evaluation", "question_from_record", "rescore_rows",
    "run_evaluation", "summarize", "template_hash", "wilson_interval",
]
