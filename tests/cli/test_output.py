"""Output files: checked before any work, written atomically, the old file kept on failure."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from racecert.cli import analyze as analyze_cli
from racecert.cli import certify as certify_cli
from racecert.cli import library as library_cli
from racecert.cli import main, output
from racecert.cli.output import (
    OutputError,
    check_output_file,
    check_output_folder,
    staging_folder,
    write_text_atomic,
)

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "tracks" / "tiny_straight.toml")
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- the module ----------------------------------------------------------------------------


def test_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    write_text_atomic(target, "one\n")
    write_text_atomic(target, "two\n")
    assert target.read_text() == "two\n" and listing(tmp_path) == ["a.json"]


def test_write_keeps_the_old_file_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomic(target, "new")
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640


@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()])
def test_failure_mid_write_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          fault: BaseException) -> None:
    """A full disk (or Ctrl-C) after the data went to the temp file: the previous file is
    unchanged, the temp file is gone, and a write error is one line naming the path."""
    target = tmp_path / "a.json"
    target.write_text("old\n")

    def broken_fsync(fd: int) -> None:
        raise fault

    monkeypatch.setattr(output.os, "fsync", broken_fsync)
    expected = OutputError if isinstance(fault, OSError) else KeyboardInterrupt
    with pytest.raises(expected) as info:
        write_text_atomic(target, "new\n" * 1000)
    assert target.read_text() == "old\n" and listing(tmp_path) == ["a.json"]
    if expected is OutputError:
        msg = str(info.value)
        assert "\n" not in msg and str(target) in msg and "No space left" in msg


def test_kill_9_mid_write_leaves_old_file(tmp_path: Path) -> None:
    """SIGKILL between writing the temp file and the rename: the old file is intact (only a
    hidden .racecert-* temp file can remain: nothing runs after SIGKILL)."""
    target = tmp_path / "result.json"
    target.write_text("old\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "tests.cli.children", "write", str(target)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "READY"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert target.read_text() == "old\n"
    leftovers = [n for n in listing(tmp_path) if n != "result.json"]
    assert all(n.startswith(output.TEMP_PREFIX) for n in leftovers)
    assert leftovers  # the stall happened after the temp file was written, before the rename


def test_staging_folder_removed_on_interrupt(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt), staging_folder(tmp_path) as staging:
        (staging / "proof.drup").write_text("1 0\n")
        raise KeyboardInterrupt
    assert listing(tmp_path) == []


@pytest.mark.parametrize("make, why", [
    (lambda d: d / "missing" / "x.json", "does not exist"),
    (lambda d: d, "is a folder"),
    (lambda d: d / "file.txt" / "x.json", "is not a folder"),
])
def test_check_output_file_rejects(tmp_path: Path, make, why: str) -> None:
    (tmp_path / "file.txt").write_text("")
    with pytest.raises(OutputError, match=why):
        check_output_file(make(tmp_path))


@pytest.mark.skipif(IS_ROOT, reason="root writes into any folder")
def test_check_output_file_unwritable_folder(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="not writable"):
            check_output_file(ro / "x.json")
    finally:
        ro.chmod(0o700)


def test_unwritable_folder_found_by_a_real_write(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The check creates (and removes) a probe file rather than trusting os.access, so a
    read-only mount is caught too; simulated here as the probe's creation failing."""
    real_open = os.open

    def read_only(path, flags, mode=0o777):
        if output.TEMP_PREFIX in str(path):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, mode)

    monkeypatch.setattr(output.os, "open", read_only)
    with pytest.raises(OutputError, match="not writable .Read-only file system"):
        check_output_file(tmp_path / "x.json")


def test_check_output_folder(tmp_path: Path) -> None:
    assert check_output_folder(tmp_path / "new") == tmp_path / "new"  # created later
    with pytest.raises(OutputError, match="does not exist"):
        check_output_folder(tmp_path / "no" / "new")
    assert listing(tmp_path) == []  # the probe is removed, nothing is created


# -- the subcommands: paths checked before any work ------------------------------------------


def _no_work(*args, **kwargs):
    raise AssertionError("the work started before the output path was checked")


@pytest.mark.parametrize("argv, module, attr", [
    (["analyze", TINY, "-o", "{d}/missing/a.json"], analyze_cli, "run_analysis"),
    (["analyze", TINY, "-o", "{d}/a.json", "-o", "{d}"], analyze_cli, "run_analysis"),
    (["analyze", TINY, "-o", "{d}/a.txt"], analyze_cli, "run_analysis"),
    (["analyze", TINY, "-o", "{d}/a.json", "-o", "{d}/a.json"], analyze_cli, "run_analysis"),
    (["certify", TINY, "-o", "{d}/missing/c.json"], certify_cli, "run_certify"),
    (["certify", TINY, "--out", "{d}"], certify_cli, "run_certify"),
    (["library", TINY, "-o", "{d}/missing/lib.json"], library_cli, "run_analysis"),
    (["explore", "opening", "-o", "{d}/missing/found"], None, None),
])
def test_bad_output_path_is_one_line_before_work(tmp_path: Path, argv: list[str], module,
                                                 attr, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    if module is not None:
        monkeypatch.setattr(module, attr, _no_work)
    else:
        from racecert.cli import explore as explore_cli
        monkeypatch.setattr(explore_cli, "explore", _no_work)
    assert main([a.format(d=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    assert listing(tmp_path) == []


def test_analyze_out_by_suffix(tmp_path: Path) -> None:
    j, svg, upper = tmp_path / "a.json", tmp_path / "t.svg", tmp_path / "B.JSON"
    assert main(["analyze", TINY, "-o", str(j), "--out", str(svg), "-o", str(upper)]) == 0
    assert json.loads(j.read_text())["m_star"] == 3
    assert json.loads(upper.read_text()) == json.loads(j.read_text())
    assert svg.read_text().startswith("<svg")
    assert listing(tmp_path) == ["B.JSON", "a.json", "t.svg"]


def test_analyze_disk_full_after_work_keeps_old_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a.json"
    target.write_text("previous result\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.os, "fsync", full)
    assert main(["analyze", TINY, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and str(target) in err
    assert target.read_text() == "previous result\n" and listing(tmp_path) == ["a.json"]


def all_checks(certificate: dict) -> list[dict]:
    """Every check of a certificate's JSON (they are listed under their figures)."""
    return [c for f in certificate["figures"].values() for c in f["checks"]]


def test_certify_out_writes_proofs_next_to_certificate(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """The proofs are staged, then renamed next to the certificate; the certificate names
    them (file names in its folder, each formula beside its proof) and nothing else is
    left in the folder."""
    out = tmp_path / "cert.json"
    code = main(["certify", str(ROOT / "tracks" / "apertura.toml"), "-o", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == {"certified": 0, "partial": 3}[printed["status"]]
    data = json.loads(out.read_text())
    assert printed == data
    arte = [c["artefacts"] for c in all_checks(data) if "proof" in c["artefacts"]]
    proofs = sorted({a["proof"] for a in arte})
    formulas = sorted({a["formula"] for a in arte})
    assert proofs and all((tmp_path / p).exists() for p in proofs)
    assert [Path(f).with_suffix(".drup").name for f in formulas] == proofs
    assert listing(tmp_path) == sorted(["cert.json", *proofs, *formulas])


def test_certify_without_out_writes_no_proof(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    assert main(["certify", str(ROOT / "tracks" / "apertura.toml"), "--json"]) in (0, 3)
    data = json.loads(capsys.readouterr().out)
    proofs = {c["artefacts"]["proof"] for c in all_checks(data) if "proof" in c["artefacts"]}
    assert proofs == {"(not written)"}
    assert listing(tmp_path) == []


# -- a write that fails after the work: one line, exit 2, the previous files kept -------------


@pytest.mark.parametrize("argv", [
    ["analyze", TINY], ["certify", TINY], ["library", TINY], ["race", TINY],
], ids=lambda argv: argv[0])
@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS])
def test_a_failed_write_after_the_work_is_one_line(argv: list[str], err: int, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / ("r.svg" if argv[0] == "race" else "r.json")
    target.write_text("previous result\n")

    def failing(fd: int) -> None:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(output.os, "fsync", failing)
    assert main([*argv, "-o", str(target)]) == 2
    out, stderr = capsys.readouterr()
    assert stderr == (f"error: {target}: cannot write: {os.strerror(err)}; the previous file, "
                      "if any, is unchanged\n")
    assert target.read_text() == "previous result\n" and listing(tmp_path) == [target.name]


def run_with_file_size_limit(size: int, *argv: str) -> subprocess.CompletedProcess:
    """`python -m racecert ARGV` where no file may grow past `size` bytes (``ulimit -f``,
    with SIGXFSZ ignored so that the write fails with EFBIG as on a full disk)."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "racecert", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, preexec_fn=limit)


@pytest.mark.parametrize("size", [10, 1000], ids=["during the work", "at the certificate"])
def test_certify_on_a_full_disk_keeps_every_previous_file(size: int, tmp_path: Path) -> None:
    """At 10 bytes the first proof's formula cannot be written (inside the checks); at
    1000 the proofs fit but the certificate does not: either way one line, exit 2, and
    the folder holds exactly what it held (no proof moved in beside the old
    certificate, no staging folder, no temp file)."""
    target = tmp_path / "c.json"
    target.write_text("previous certificate\n")
    res = run_with_file_size_limit(size, "certify", TINY, "-o", str(target))
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith(f"error: {tmp_path}") and "File too large" in res.stderr
    assert target.read_text() == "previous certificate\n" and listing(tmp_path) == ["c.json"]


# -- what a run killed by SIGKILL left: removed by a later run once a day old ----------------


def test_stale_temp_files_of_racecert_are_removed_by_the_next_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = os.stat(tmp_path).st_mtime - 2 * 86_400
    ours = [".racecert-a.json.0123abcd.tmp", ".racecert-probe-89abcdef",
            ".racecert-staging-0123abcd", ".racecert-staging-999999999-0123abcd"]
    theirs = [".racecert-notes.txt", "racecert-a.json.0123abcd.tmp", "keep.tmp"]
    for name in ours + theirs:
        (tmp_path / name).write_text("left behind\n")
    (tmp_path / ".racecert-staging-0123abcd").unlink()
    (tmp_path / ".racecert-staging-0123abcd").mkdir()
    (tmp_path / ".racecert-staging-0123abcd" / "t.drup").write_text("proof\n")
    fresh = ".racecert-b.json.fedcba98.tmp"  # a run writing now: kept
    (tmp_path / fresh).write_text("being written\n")
    running = f".racecert-staging-{os.getpid()}-0123abcd"  # a run still going: kept
    (tmp_path / running).mkdir()
    for name in [*ours, *theirs, running]:
        os.utime(tmp_path / name, (old, old))
    assert main(["analyze", TINY, "-o", str(tmp_path / "a.json")]) == 0
    assert listing(tmp_path) == sorted([*theirs, fresh, running, "a.json"])


def test_stale_dask_scratch_is_removed_from_the_temp_folder(tmp_path: Path) -> None:
    from racecert.atomic import sweep_stale

    for name in ("racecert-dask-abc_1234", "racecert-dask-999999999-abc_1234",
                 f"racecert-dask-{os.getpid()}-abc_1234", "dask-scratch-space"):
        (tmp_path / name).mkdir()
    now = os.stat(tmp_path).st_mtime + 2 * 86_400
    assert sorted(sweep_stale(tmp_path, now)) == ["racecert-dask-999999999-abc_1234",
                                                   "racecert-dask-abc_1234"]
    assert listing(tmp_path) == ["dask-scratch-space", f"racecert-dask-{os.getpid()}-abc_1234"]
