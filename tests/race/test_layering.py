"""The race package sits on top: nothing below it (model, solvers, verify, analysis)
imports it, and it reaches the track only through the model's rules and the oracle."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "racecert"


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_lower_packages_never_import_race():
    lower = [p for sub in ("model", "solvers", "verify", "analysis")
             for p in (PKG / sub).glob("*.py")]
    assert lower
    for path in lower:
        assert not any(m == "racecert.race" or m.startswith("racecert.race.")
                       for m in _imports(path)), path


def test_race_never_imports_the_cli():
    for path in (PKG / "race").glob("*.py"):
        assert not any(m.startswith("racecert.cli") for m in _imports(path)), path
