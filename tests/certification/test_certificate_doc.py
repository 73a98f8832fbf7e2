"""The full certificate shown in docs/certificate.md is what `racecert certify` prints
(run in-process: what is tested is the output, not the process's start-up)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_documented_certificate_is_reproduced(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    doc = (ROOT / "docs" / "certificate.md").read_text()
    block = re.search(r"## A full certificate.*?```\n(.*?)```", doc, re.S)
    assert block is not None
    shown = block.group(1).strip().splitlines()
    out = tmp_path / "out" / "cert.json"
    out.parent.mkdir()
    monkeypatch.chdir(ROOT)
    code = main(["certify", "tracks/tiny_circuit_nocont.toml", "-o", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    printed = stdout.split("\n\nchecks:")[0].strip().splitlines()
    assert printed == shown
    names = sorted(f.name for f in out.parent.iterdir())
    assert "cert.json" in names
    stems = {n.rsplit(".", 1)[0] for n in names if n.endswith((".cnf", ".drup"))}
    assert all(f"{s}.cnf" in names and f"{s}.drup" in names for s in stems)
    assert all(re.search(r"-[0-9a-f]{16}$", s) for s in stems)  # the content's SHA-256
    assert sum(bool(re.search(r"-T16-[0-9a-f]{16}$", s)) for s in stems) == 3
    assert sum(bool(re.search(r"-onehot-T16-[0-9a-f]{16}$", s)) for s in stems) == 1
    assert sum(bool(re.search(r"-kinematics-T16-[0-9a-f]{16}$", s)) for s in stems) == 1
    assert sum("-continuity-" in s for s in stems) == 6
    shown_pair = re.search(r"drat-trim DIR/(\S+)\.cnf", doc)  # the outside checker's example
    assert shown_pair is not None and shown_pair.group(1) in stems
    code = main(["certify", "--verify", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stdout + stderr
    assert stdout == (f"{out}: verified: 9 proofs and their formulas have their SHA-256 "
                        "and every proof refutes its formula (DRUP check)\n")
