"""The installed package stands alone (issue #22 item 2): the wheel carries what an
installed racecert needs besides its modules, `py.typed` (so type checkers read
racecert's annotations), the studio's static files and the bundled tracks; installed
into a fresh virtual environment and run from a folder outside the clone, `racecert
tracks` lists them, `racecert validate tiny_straight` and `racecert analyze riddler`
find them by name.

One wheel is built per module (a fixture), by pip with the build backend of this
environment (`--no-build-isolation`: setuptools >= 77 and wheel are in the test extras,
so no isolated build environment is made and the package index is not needed); a build
that fails fails the tests with pip's last line. The fresh environment gets no network
either: it is created without pip and a `.pth` file puts the test environment's
site-packages (numpy, numba, ..., pip) after its own, so `pip install --no-deps
--no-index` installs the wheel alone; the clone's
editable install is not visible there (a path in a `.pth` file runs no `.pth` files),
which the test checks by asking where `racecert` was imported from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACKS = ROOT / "racecert" / "tracks"


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once for every test here."""
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src")  # a copy, so the build leaves nothing in the clone
    shutil.copytree(ROOT / "racecert", src / "racecert",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "--no-build-isolation", "-q", str(src), "-w", str(out)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["pip wheel failed"])[-1]
        pytest.fail(f"pip wheel failed (are the test extras, setuptools >= 77 and wheel "
                    f"among them, installed?): {last}")
    (path,) = out.glob("racecert-*.whl")
    return path


@pytest.fixture(scope="module")
def wheel(wheel_file: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(wheel_file)


@pytest.fixture(scope="module")
def installed(wheel_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin` folder of a fresh virtual environment with the wheel installed."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_path('purelib'))"], check=True,
                             capture_output=True, text=True).stdout.strip()
    # the dependencies (and pip) from this environment, after the fresh one's own packages
    ours = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
    Path(purelib, "racecert-test-deps.pth").write_text("".join(f"{p}\n" for p in ours))
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    str(wheel_file)], check=True, env=_clean_env())
    return venv / "bin"


def _clean_env() -> dict[str, str]:
    """This process's environment without what would put the clone on the path."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")}


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env={**_clean_env(), **env}, capture_output=True,
                          text=True, check=False, timeout=300)


def test_wheel_has_py_typed_and_the_studio_files(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "racecert/py.typed" in names
    static = sorted(p.relative_to(ROOT).as_posix()
                    for p in (ROOT / "racecert" / "studio" / "static").rglob("*") if p.is_file())
    assert static and set(static) <= names


def test_wheel_has_the_bundled_tracks_and_not_the_tools(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    tracks = {p.relative_to(ROOT).as_posix() for p in TRACKS.rglob("*.toml")}
    assert {"racecert/tracks/ocho.toml", "racecert/tracks/lattice/riddler.toml"} <= tracks
    assert {n for n in names if n.startswith("racecert/tracks/") and n.endswith(".toml")} == tracks
    assert "racecert/tracks/README.md" in names
    assert not [n for n in names if n.startswith("racecert/tracks/") and n.endswith(".py")]
    assert not [n for n in names if n.startswith(("tools/", "tests/"))]


def test_installed_wheel_runs_bundled_tracks_by_name(installed: Path, tmp_path: Path) -> None:
    where = _run([str(installed / "python"), "-c", "import racecert; print(racecert.__file__)"],
                 tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.parent)  # not the clone

    listed = _run([str(installed / "racecert"), "tracks"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[1:]}
    assert len(rows) == len(list(TRACKS.rglob("*.toml")))
    assert rows["tiny_straight"][1:5] == ["10x3", "1", "grid", "stage"]

    # a grid track by name, read and checked; then a lattice track by name, analysed: its
    # pipeline compiles a few small kernels where the grid's (the same modules as in the
    # clone, where every other test runs them) would cost a fresh install ~15 s of CPU;
    # compiled without LLVM's optimisation passes (NUMBA_OPT=0: the same kernels, compiled
    # and cached into the fresh environment as by default, 2.4 instead of 3 CPU s)
    validated = _run([str(installed / "racecert"), "validate", "tiny_straight"], tmp_path)
    assert validated.returncode == 0, validated.stderr
    assert "Tiny straight" in validated.stdout
    analysed = _run([str(installed / "racecert"), "analyze", "riddler", "--json"], tmp_path,
                    NUMBA_OPT="0")
    assert analysed.returncode == 0, analysed.stderr
    data = json.loads(analysed.stdout)
    assert data["track"] == "Riddler racetrack" and data["m_star"] == 12

    unknown = _run([str(installed / "racecert"), "analyze", "tiny_stright"], tmp_path)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.startswith("error: tiny_stright: no such file")
    assert "did you mean 'tiny_straight'?" in unknown.stderr
    assert not list(tmp_path.iterdir())  # nothing written into the working folder
