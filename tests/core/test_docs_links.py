"""Every relative link in the project's Markdown resolves: the file exists and, when the link names a heading
(`#anchor`), the file has that heading (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens)."""
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
DOCS = [REPO / name for name in subprocess.run(["git", "ls-files", "*.md"], cwd=REPO, capture_output=True, text=True,
                                                check=True).stdout.split()]


def anchors(markdown: str) -> set[str]:
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", markdown, flags=re.M):
        text = re.sub(r"[`*]", "", heading).strip().lower()
        found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def relative_links(path: Path) -> list[str]:
    return [target for target in LINK.findall(path.read_text()) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(doc):
    broken = []
    for target in relative_links(doc):
        file, _, anchor = target.partition("#")
        goal = (doc.parent / file).resolve() if file else doc
        if not goal.exists():
            broken.append(f"{target}: no file {goal.relative_to(REPO) if goal.is_relative_to(REPO) else goal}")
        elif anchor and anchor not in anchors(goal.read_text()):
            broken.append(f"{target}: no heading #{anchor} in {goal.relative_to(REPO)}")
    assert not broken, "\n".join(broken)


def test_the_readme_leads_with_the_two_commands():
    """A newcomer reaches both commands within the README's first screen (about 60 lines)."""
    head = "\n".join((REPO / "README.md").read_text().splitlines()[:60])
    assert "./dev.sh serve" in head and "./dev.sh test" in head
    assert len((REPO / "README.md").read_text()) < 8_000
