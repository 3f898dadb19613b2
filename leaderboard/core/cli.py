"""What the management commands' argument parsers share: the evaluator engine's options, the same on every command
that runs a model through it, and on/off switches given as a table of their help texts."""
from evaluator.backends import available_backends
from evaluator.engine import MODES


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
