"""`racecert certify --json` is reproducible: two runs on the same track give the same
JSON apart from the one documented `timing` block (wall seconds), issue #19. One run is a
fresh process, the other runs in the test's own (another hash seed, warm caches)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _certify_json() -> dict:
    p = subprocess.run([sys.executable, "-m", "racecert", "certify",
                        "tracks/tiny_straight.toml", "--json"],
                       capture_output=True, text=True, cwd=ROOT, check=False)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _certify_json_here(capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.chdir(ROOT)
    code = main(["certify", "tracks/tiny_straight.toml", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _no_seconds(node: object, path: str = "") -> None:
    """No key outside `timing` names seconds."""
    if isinstance(node, dict):
        for k, v in node.items():
            assert "seconds" not in k, f"{path}.{k}"
            _no_seconds(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_seconds(v, f"{path}[{i}]")


def test_two_runs_give_the_same_certificate_apart_from_timing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _certify_json(), _certify_json_here(capsys, monkeypatch)
    t1, t2 = first.pop("timing"), second.pop("timing")
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    _no_seconds(first)
    checks = [c for f in first["figures"].values() for c in f["checks"]]
    checks += first["other_checks"]
    assert not any(" s)" in c["reason"] or " s;" in c["reason"] for c in checks)
    for t in (t1, t2):
        assert set(t) >= {"note", "total", "bfs", "checks"} and t["total"] > 0
        assert set(t["bfs"]) == {"exact", "editor"}
        assert len(t["checks"]) == first["summary"]["checks"]
        assert all(isinstance(c["seconds"], float) for c in t["checks"])
