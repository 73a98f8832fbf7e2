"""The independence contract, checked on the source: the independent side imports no
oracle, analysis or model-rules code, directly or through another racecert module.

`make lint` enforces the same contract with import-linter (pyproject.toml); this test
keeps it in `make test` too, and shows the checker really catches a violation.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
    "contracts"]
(INDEPENDENCE,) = [c for c in CONTRACTS if c.get("source_modules") == ["racecert.independent"]]
FORBIDDEN_FOR_INDEPENDENT = tuple(INDEPENDENCE["forbidden_modules"])
"""The modules the independent side must not reach: the contract `make lint` checks, read
from its one home (pyproject.toml)."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def direct_imports(path: Path, name: str) -> set[str]:
    """racecert modules imported by one file (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in out if m.split(".")[0] == "racecert"}


def import_graph(root: Path) -> dict[str, set[str]]:
    files = {module_name(p, root): p for p in (root / "racecert").rglob("*.py")}
    return {name: {m for m in direct_imports(p, name) if m in files}
            for name, p in files.items()}


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in graph.get(m, ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def violations(root: Path, source: str, forbidden: tuple[str, ...]) -> list[str]:
    graph = import_graph(root)
    bad = []
    for m in sorted(graph):
        if m == source or m.startswith(source + "."):
            for dep in sorted(reachable(graph, m)):
                if any(dep == f or dep.startswith(f + ".") for f in forbidden):
                    bad.append(f"{m} -> {dep}")
    return bad


def test_independent_side_imports_no_oracle_code() -> None:
    assert (ROOT / "racecert" / "independent").is_dir()
    assert {"racecert.oracle", "racecert.analysis", "racecert.model.rules",
            "racecert.model.cellpath.rules"} <= set(FORBIDDEN_FOR_INDEPENDENT)
    assert violations(ROOT, "racecert.independent", FORBIDDEN_FOR_INDEPENDENT) == []


def test_the_contract_check_catches_an_indirect_violation(tmp_path: Path) -> None:
    """An independent module reaching the oracle through a helper module is caught."""
    pkg = tmp_path / "racecert"
    for sub in ("independent", "oracle", "model"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "model" / "track.py").write_text("X = 1\n")
    (pkg / "oracle" / "bfs.py").write_text("from racecert.model.track import X\n")
    (pkg / "independent" / "helper.py").write_text("from racecert.oracle import bfs\n")
    (pkg / "independent" / "fine.py").write_text("from racecert.model.track import X\n")
    (pkg / "independent" / "sneaky.py").write_text("from . import helper\n")
    bad = violations(tmp_path, "racecert.independent", FORBIDDEN_FOR_INDEPENDENT)
    assert "racecert.independent.sneaky -> racecert.oracle.bfs" in bad
    assert not any(b.startswith("racecert.independent.fine ") for b in bad)


def test_import_linter_contracts_are_kept() -> None:
    """The same contract through import-linter (what `make lint` runs)."""
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed in this environment")
    r = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout
