"""racecert.independent shares no code with the oracle: its modules import only what is allowed."""

from __future__ import annotations

import ast
from pathlib import Path

import racecert.independent

PACKAGE = Path(racecert.independent.__file__).parent
ALLOWED_RACECERT = ("racecert.model.track", "racecert.model.errors", "racecert.verify.geometry",
                    "racecert.independent")
ALLOWED_OTHER = ("__future__", "collections", "dataclasses", "fractions", "functools", "typing",
                 "numpy")


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.add(node.module or "")
    return out


def test_only_allowed_imports() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) >= 4
    for path in files:
        for name in _imports(path):
            if name.startswith("racecert"):
                assert name.startswith(ALLOWED_RACECERT), f"{path.name} imports {name}"
            else:
                assert name.split(".")[0] in ALLOWED_OTHER, f"{path.name} imports {name}"


def test_the_import_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    """Corruption: a module importing the oracle is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from racecert.solvers.bfs import layered_bfs\nimport numpy as np\n")
    assert "racecert.solvers.bfs" in _imports(bad)
    assert not "racecert.solvers.bfs".startswith(ALLOWED_RACECERT)
