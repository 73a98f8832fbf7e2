"""`racecert crosscheck`: exit status 0 / 1 / 2 and the messages."""

from __future__ import annotations

import json
from pathlib import Path

from racecert.cli import main

TRACK = str(Path(__file__).resolve().parents[2] / "tracks" / "mini_arcen.toml")


def _run(tmp_path: Path, text: str, capsys) -> tuple[int, str, str]:
    f = tmp_path / "result.json"
    f.write_text(text)
    code = main(["crosscheck", TRACK, str(f)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_agreement_exits_0(tmp_path: Path, capsys) -> None:
    code, out, _ = _run(tmp_path, json.dumps({"m_star": 4, "optimal_count": 3}), capsys)
    assert code == 0
    assert "2 compared, 0 disagreement(s)" in out


def test_wrong_count_exits_1(tmp_path: Path, capsys) -> None:
    code, out, _ = _run(tmp_path, json.dumps({"m_star": 4, "optimal_count": "2"}), capsys)
    assert code == 1
    assert "disagree" in out


def test_malformed_json_exits_2_naming_the_file(tmp_path: Path, capsys) -> None:
    code, _, err = _run(tmp_path, '{"m_star": 4,,}', capsys)
    assert code == 2
    assert "result.json" in err and "line 1" in err


def test_bad_value_exits_2(tmp_path: Path, capsys) -> None:
    code, _, err = _run(tmp_path, json.dumps({"optimal_count": -3}), capsys)
    assert code == 2
    assert "optimal_count" in err
