"""Every TOML example in README.md and docs/*.md is a valid track (issue #22 item 1).

A reader copies a ```toml block into a file and runs `racecert validate` on it; this
test parses and validates each block exactly as that command would
(`racecert.model.parse.parse_track`), so an example that drifts from the format
fails here. docs/development.md states the convention.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from racecert.model.parse import parse_track

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOML_BLOCK = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)


def toml_blocks() -> list[tuple[str, str]]:
    """(``FILE:LINE`` of the block's fence, its text) for every ```toml block."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in TOML_BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{doc.relative_to(ROOT)}:{line}", m.group(1)))
    return out


BLOCKS = toml_blocks()


def test_the_docs_have_toml_examples() -> None:
    assert len(BLOCKS) >= 2  # the grid and the lattice examples of docs/track-format.md


@pytest.mark.parametrize(("where", "text"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_toml_example_is_a_valid_track(where: str, text: str) -> None:
    track = parse_track(text.encode("utf-8"), where)
    assert track.name
