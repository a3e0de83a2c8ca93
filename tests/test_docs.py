"""The README and docs/: every relative link and image points at a file of the repository and,
with ``#anchor``, at a heading of that file (GitHub's slugs); the README stays short and starts
with the two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.core.settings import PROJECT_ROOT

PAGES = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (hyphens kept), spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def links(page: Path) -> list[str]:
    return _LINK.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))


def test_slug_follows_github() -> None:
    assert slug('The indefinite reading ("same scene")') == "the-indefinite-reading-same-scene"
    assert slug("Natural logic (`engine/natlog`)") == "natural-logic-enginenatlog"
    assert slug("What is not done (issue 26)") == "what-is-not-done-issue-26"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not checked offline
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with that anchor in {file.name}")
    assert not broken, broken


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 350
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in first_block.splitlines()] == [["make", "run"], ["make", "test"]]
    # every docs page is reachable from the README
    linked = {Path(t.partition("#")[0]).name for t in links(PROJECT_ROOT / "README.md")}
    assert {p.name for p in PAGES[1:]} <= linked
