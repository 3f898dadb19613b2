"""What the management commands share: the evaluator engine's options, the same on every command that runs a model
through it, on/off switches given as a table of their help texts, and one way to refuse (a code, as the API has)."""
from django.core.management.base import CommandError

from evaluator.backends import available_backends
from evaluator.engine import MODES

from .errors import DomainError


def add_engine_arguments(parser) -> None:
    """--backend, --device, --dtype, --batch-size and --mode of the evaluator's engine (a parser or a group)."""
    parser.add_argument("--backend", default="transformers", choices=available_backends())
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--mode", default="logprobs", choices=MODES)


def add_switches(parser, helps: dict[str, str]) -> None:
    """One ``store_true`` option per entry of ``helps`` (option → its help text), in order."""
    for option, help_text in helps.items():
        parser.add_argument(option, action="store_true", help=help_text)


def refused(code: str, message: str, hint: str = "", *, returncode: int = 2) -> CommandError:
    """A command's refusal, worded as the API words it: `CODE: what is wrong — how to fix it`; exit status 2 for a
    refusal of the arguments, 1 for work that failed."""
    return CommandError(f"{code}: {message}" + (f" — {hint}" if hint else ""), returncode=returncode)


def refusal_of(error: DomainError, *, returncode: int = 2) -> CommandError:
    return refused(error.code, error.message, error.hint, returncode=returncode)
