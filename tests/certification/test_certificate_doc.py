"""The full certificate shown in docs/certificate.md is what `racecert certify` prints
(run in-process: what is tested is the output, not the process's start-up; the run is the
session's `circuit_certificate`, which tests/cli/test_certify_proofs.py reads too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from racecert.cli import main
from tests.conftest import CircuitCertificate

ROOT = Path(__file__).resolve().parents[2]


def test_the_documented_certificate_is_reproduced(circuit_certificate: CircuitCertificate,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    doc = (ROOT / "docs" / "certificate.md").read_text()
    block = re.search(r"## A full certificate.*?```\n(.*?)```", doc, re.S)
    assert block is not None
    shown = block.group(1).strip().splitlines()
    out = circuit_certificate.folder / "cert.json"
    code, stdout, stderr = (circuit_certificate.code, circuit_certificate.stdout,
                            circuit_certificate.stderr)
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
