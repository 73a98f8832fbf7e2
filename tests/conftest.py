"""Test-suite configuration.

Hypothesis: no per-example deadline (the suite runs on loaded 2-core machines,
where a timing limit would only make tests flaky; speed is measured by the
benchmark, never by tests), derandomized so that CI and every developer run the
same examples (a red run is reproducible, and the coverage floors some property
tests assert cannot flake), and failures print a reproduction blob. Set
HYPOTHESIS_PROFILE=explore for fresh random examples on each run, or
HYPOTHESIS_PROFILE=thorough for ten times as many.

Signals: a shell that starts the suite as a background job (no job control) hands it
SIGINT ignored, which every child inherits; the Ctrl-C tests (CLI, batch, studio) need
the disposition a terminal gives, so the suite restores Python's handler (children then
start with the default and install their own).

Garbage collection: the suite's process keeps session fixtures, cached analyses and
certificates alive for minutes, and with CPython's default thresholds each full
collection re-walks all of it: 43 full collections, 13.8 of the in-process CPU seconds
of a whole run (17.6 s in the collector in all). The suite uses the thresholds every
`racecert` process sets (`racecert.collector.GC_THRESHOLDS`).

Shared work: `circuit_certificate` certifies the documented circuit once for the whole
session (two test modules in two folders read it); `chicane_certificate` is
`racecert.certify("cellpath/chicane")` once for the API's tests (tests/test_api.py and
tests/test_api_reprs.py read it); `riddler_certificate` is the riddler's lattice
certificate from its every start, once for docs/public-tracks.md's certificate cell and the
lattice certificate's test; `browser` is one chromium for every browser test of the session.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from racecert.collector import GC_THRESHOLDS

gc.set_threshold(*GC_THRESHOLDS)

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("racecert", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.register_profile("thorough", parent=settings.get_profile("explore"),
                          max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "racecert"))

ROOT = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class CircuitCertificate:
    """What `racecert certify tracks/tiny_circuit_nocont.toml -o DIR/cert.json` gave."""

    folder: Path
    """DIR: cert.json and its proofs (a test that damages them works on a copy)."""
    code: int
    stdout: str
    stderr: str
    certificate: Any
    """The `Certificate` that run made (what `run_certify` returned to the command)."""


@pytest.fixture(scope="session")
def circuit_certificate(tmp_path_factory: pytest.TempPathFactory) -> CircuitCertificate:
    """docs/certificate.md's full certificate, made once for the session (in-process, from
    the repository root, as the page shows the command): the page's test, the proof
    files' tests (tests/cli/test_certify_proofs.py) and the vocabulary's test of the kinds
    that confirm each figure (tests/certification/test_vocabulary.py, on the certificate
    itself, kept as `run_certify` returns it) read the same run."""
    from racecert.cli import certify as certify_cli
    from racecert.cli import main

    made: list[Any] = []
    run_certify = certify_cli.run_certify

    def keep(*args: Any, **kwargs: Any) -> Any:
        made.append(run_certify(*args, **kwargs))
        return made[-1]

    folder = tmp_path_factory.mktemp("circuit-certificate")
    out, err = io.StringIO(), io.StringIO()
    certify_cli.run_certify = keep
    try:
        with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = main(["certify", "tracks/tiny_circuit_nocont.toml", "-o",
                         str(folder / "cert.json")])
    finally:
        certify_cli.run_certify = run_certify
    (certificate,) = made
    return CircuitCertificate(folder, code, out.getvalue(), err.getvalue(), certificate)

@pytest.fixture(scope="session")
def chicane_certificate():
    """`racecert.certify("cellpath/chicane")` (the API's defaults, one start), made once for
    the session: the API's profile test and the notebook view of a cell-path certificate
    read the same result."""
    import racecert

    return racecert.certify("cellpath/chicane")


@pytest.fixture(scope="session")
def riddler_certificate():
    """`certify_lattice(riddler, best_start=True)` (the public table's certificate of
    tracks/lattice/riddler.toml, default budgets), made once for the session:
    tests/test_public_tracks.py compares its cell with it and
    tests/certification/test_lattice_certificate.py checks its figures and methods."""
    from racecert.certification.lattice.certificate import certify_lattice
    from racecert.model.parse import load_track

    return certify_lattice(load_track(ROOT / "tracks" / "lattice" / "riddler.toml"),
                           best_start=True)


@pytest.fixture(scope="session")
def browser():
    """One headless chromium (Debian's, driven by Playwright) for every browser test of
    the session (the studio's and the race replay's): each test opens its own page in
    it. One per session, so that no two Playwright loops are ever open at once."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("RACECERT_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium (make test "
                    "installs it), or set RACECERT_CHROMIUM to its path")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()
