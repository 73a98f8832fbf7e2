"""`racecert studio`: checks before the server starts, a real run (its URL carries the token
the API needs) stopped by Ctrl-C, and the warning line of a host that is not loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from racecert.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent


def test_a_missing_track_is_one_line(capsys, tmp_path: Path) -> None:
    """A missing .toml in an existing folder is a new track (tests/studio/test_new_track.py);
    in a missing folder, or without the .toml suffix, it is one line."""
    assert main(["studio", str(tmp_path / "missing" / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.toml: no such file" in err
    assert "missing does not exist" in err
    assert main(["studio", str(tmp_path / "nope.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.txt: no such file" in err


def test_a_file_that_is_not_a_track_is_one_line(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    assert main(["studio", str(bad)]) == 2
    assert "TOML syntax error" in capsys.readouterr().err


def test_a_broken_lattice_track_is_one_line(capsys, tmp_path: Path) -> None:
    """A lattice track opens read only (tests/studio/test_profile_view.py); one the
    parser rejects is one line before the server starts, as a grid track's is."""
    bad = tmp_path / "bad.toml"
    bad.write_text((ROOT / "tracks/lattice/riddler.toml").read_text()
                   .replace("radius = 3", "radius = -3"))
    assert main(["studio", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "radius" in err


def test_a_port_in_use_is_one_line(capsys) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert main(["studio", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_the_server_runs_and_ctrl_c_ends_it_with_130(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    p = subprocess.Popen([sys.executable, "-m", "racecert", "studio",
                          str(ROOT / "tracks" / "ocho.toml"), "--port", "0",
                          "--folder", str(tmp_path)],
                         stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = p.stderr.readline()
        assert line.startswith("racecert studio: http://127.0.0.1:")
        url, _, token = line.split()[2].partition("/?token=")
        assert len(token) >= 40
        try:
            urllib.request.urlopen(url + "/api/session", timeout=30)
            raise AssertionError("the API answered a request without the token")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403
        session = json.loads(urllib.request.urlopen(
            urllib.request.Request(url + "/api/session", headers={"X-Racecert-Token": token}),
            timeout=30).read())
        assert session["initial"]["document"]["name"] == "Ocho"
        assert [f["writable"] for f in session["folders"]] == [False, True]
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 130
        assert p.stderr.read() == "interrupted\n"
    finally:
        if p.poll() is None:
            p.kill()


def test_a_host_that_is_not_loopback_prints_a_warning(tmp_path: Path) -> None:
    """--host 0.0.0.0 serves the network: a warning line, then the URL with the token."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    p = subprocess.Popen([sys.executable, "-m", "racecert", "studio", "--host", "0.0.0.0",
                          "--port", "0", "--folder", str(tmp_path)],
                         stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        warning, line = p.stderr.readline(), p.stderr.readline()
        assert warning.startswith("racecert studio: warning: listening on 0.0.0.0")
        assert "token" in warning
        assert line.startswith("racecert studio: http://0.0.0.0:") and "/?token=" in line
        # the server answers (on loopback too) before the Ctrl-C: a signal that lands while
        # it is still starting is not what this test is about
        port = line.split()[2].split(":")[2].split("/")[0]
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read()
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 130
    finally:
        if p.poll() is None:
            p.kill()
