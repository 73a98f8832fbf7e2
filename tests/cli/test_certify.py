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
    code = main(["certify", TINY, "--json", "--out", str(out)])
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    assert code == {"certified": 0, "partial": 3}[printed["status"]]
    assert printed["summary"]["ok"] and written["track"]["sha256"] == printed["track"]["sha256"]
    assert set(written["figures"]) >= {"m_star", "optimal_count", "move_validity", "score"}
    assert written["figures"]["m_star"]["verdict"] == "agree"
    assert written["bfs"]["exact"]["m_star"] == 3


def test_certify_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["certify", TINY])
    text = capsys.readouterr().out
    assert "optimal_count" in text and "agree" in text
    headline = text.strip().splitlines()[-1]
    assert (code, headline.split(":")[0]) in ((0, "CERTIFIED"), (3, "PARTIAL"))
    if code == 3:  # the headline names every figure left unconfirmed
        assert "not confirmed:" in headline


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
