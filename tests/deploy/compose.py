"""Reading the compose files as Docker Compose would, without Docker (no engine runs on CI machines)."""
import re
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


_VARIABLE = re.compile(r"\$\{(\w+)(?:(:?)([-?])([^}]*))?\}")


def interpolate(value: str, env: dict | None = None) -> str:
    """Compose's `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}` against `env` (default: empty,
    what a deployment gets when docker/.env leaves the variable out)."""
    env = env or {}

    def substitute(match):
        name, colon, kind, word = match.groups()
        present = name in env and (not colon or env[name] != "")
        if present:
            return env[name]
        if kind == "-":
            return word
        if kind == "?":
            raise ValueError(f"{name}: {word}")
        return ""
    return _VARIABLE.sub(substitute, value)


def dockerfile_args(path: Path) -> dict[str, str]:
    """The defaults of a Dockerfile's `ARG NAME=value` lines."""
    return dict(re.findall(r"^ARG (\w+)=\"?([^\"\n]*)\"?$", path.read_text(), flags=re.M))


def requirement_names(path: Path) -> set[str]:
    """Distribution names a pip requirements file installs, following `-r` includes (lower case)."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith(("-r ", "--requirement ")):
            names |= requirement_names(path.parent / line.split(None, 1)[1])
        elif line and not line.startswith("-"):
            names.add(re.match(r"[A-Za-z0-9._-]+", line).group(0).lower().replace("_", "-"))
    return names
