"""The MRScore judge prompt (Mobile-MMLU paper, Appendix D), versioned and hashed.

The first and last sentences are the paper's; the three criterion lines say what
each named criterion means. Any change to the text is a new PROMPT_VERSION, and
the sha256 of the exact template used is stored with every score, so scores from
different prompts are never mixed silently.

Two renderings:
- `chat`: the prompt is the user turn (HTTP judges, and local models with a chat
  template); the reply is expected to start with the number.
- `completion`: for a local base model without a chat template, "\nScore:" is
  appended so the next token is the number. It hashes differently.
"""
from __future__ import annotations

import hashlib

PROMPT_VERSION = "mrscore-appendix-d-v1"

TEMPLATE = (
    "You are an expert in evaluating the relevance of different types of questions for mobile devices. "
    "Assess a given question using the criteria of practical value, mobile-friendliness, and usage patterns "
    "to return a relevance score from 1 to 10.\n"
    "\n"
    "Criteria:\n"
    "1. Practical value: how useful an answer to the question is in everyday life, on the go.\n"
    "2. Mobile-friendliness: whether the question can be asked and its answer used comfortably on a phone.\n"
    "3. Usage patterns: how likely people are to ask this kind of question on a mobile device.\n"
    "\n"
    "Question: {question}\n"
    "\n"
    "Return only the numeric score without explanation."
)
COMPLETION_SUFFIX = "\nScore:"
RENDERINGS = ("chat", "completion")


def render(question: str, *, rendering: str = "chat") -> str:
    if rendering not in RENDERINGS:
        raise ValueError(f"unknown prompt rendering {rendering!r}; use one of {', '.join(RENDERINGS)}")
    text = TEMPLATE.replace("{question}", question.strip())
    return text + COMPLETION_SUFFIX if rendering == "completion" else text


def template_text(rendering: str = "chat") -> str:
    return TEMPLATE + (COMPLETION_SUFFIX if rendering == "completion" else "")


def prompt_hash(rendering: str = "chat") -> str:
    """sha256 over the version and the exact template text of this rendering."""
    return hashlib.sha256(f"{PROMPT_VERSION}\n{template_text(rendering)}".encode()).hexdigest()
