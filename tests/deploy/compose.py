"""Reading the compose files as Docker Compose would, without Docker (no engine runs on CI machines)."""
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
COMPOSE_CPU = REPO / "docker-compose.cpu.yml"


class Reset:
    """Compose's `!reset` tag: drop the inherited value when files are merged."""


class ComposeLoader(yaml.SafeLoader):
    pass


ComposeLoader.add_constructor("!reset", lambda loader, node: Reset())
ComposeLoader.add_constructor("!override", lambda loader, node: (
    loader.construct_mapping(node, deep=True) if isinstance(node, yaml.MappingNode)
    else loader.construct_sequence(node, deep=True) if isinstance(node, yaml.SequenceNode)
    else loader.construct_scalar(node)))


def load(path: Path) -> dict:
    return yaml.load(path.read_text(), Loader=ComposeLoader)


def merge(base, override):
    """Compose's merge of a later file into an earlier one: mappings recursively, other values replaced."""
    if isinstance(override, Reset):
        return Reset()
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = merge(base.get(key), value)
        return {k: v for k, v in merged.items() if not isinstance(v, Reset)}
    return override


def strip_resets(value):
    if isinstance(value, dict):
        return {k: strip_resets(v) for k, v in value.items() if not isinstance(v, Reset)}
    return value


def variants() -> dict[str, dict]:
    """The stack as `docker compose up` sees it, on a GPU host and on a CPU-only one."""
    gpu = load(COMPOSE)
    return {"gpu": gpu, "cpu": merge(gpu, load(COMPOSE_CPU))}
