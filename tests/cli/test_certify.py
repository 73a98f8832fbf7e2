"""`racecert certify`: exit status, JSON output, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from racecert.certification import certificate
from racecert.certification.certificate import CertifyContext, CheckResult
from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "tracks" / "tiny_straight.toml")


def test_certify_json_and_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cert.json"
    assert main(["certify", TINY, "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    assert printed["summary"]["ok"] and written["track"]["sha256"] == printed["track"]["sha256"]
    assert {c["figure"] for c in written["checks"]} >= {"m*", "optimal_count", "move validity"}
    assert written["bfs"]["exact"]["m_star"] == 3


def test_certify_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", TINY]) == 0
    text = capsys.readouterr().out
    assert "CERTIFIED" in text and "optimal_count" in text and "agree" in text


def test_certify_exit_1_on_disagreement(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    def bogus(ctx: CertifyContext) -> list[CheckResult]:
        """Always disagrees."""
        return [CheckResult("m*", ctx.exact.m_star, "bogus", 99, "disagree", "test", 0.0)]

    monkeypatch.setattr(certificate, "default_checks", lambda: [bogus])
    assert main(["certify", TINY]) == 1
    assert "DISAGREEMENT" in capsys.readouterr().out


def test_certify_exit_2_on_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n')
    assert main(["certify", str(bad)]) == 2
    assert "error" in capsys.readouterr().err
