"""Proof files named by their content's SHA-256, and `racecert certify --verify CERT` (#21).

Two tracks of the same name and m* certified into one folder used to share the proof
file names (`tiny-straight-T2.drup`), so the second run's proofs replaced the first
certificate's; here each certificate keeps its own, and --verify catches a missing,
changed or swapped file and a proof that does not refute its formula.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from racecert.certification.proof_files import NOT_WRITTEN, ProofPair, named_proofs
from racecert.cli import certify as certify_cli
from racecert.cli import main
from tests.conftest import CircuitCertificate

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tracks" / "tiny_straight.toml"


def two_row_variant(folder: Path) -> Path:
    """Tiny straight with a second row: same name, same m* = 3, other formulas."""
    text = TINY.read_text()
    text = text.replace("#........#\n", "#........#\n#........#\n").replace(
        "y = [1, 1]", "y = [1, 2]")
    path = folder / "two_rows.toml"
    path.write_text(text)
    return path


def pairs(cert: Path) -> list[ProofPair]:
    return named_proofs(json.loads(cert.read_text()))


def names(cert: Path) -> set[str]:
    return {n for p in pairs(cert) for n in (p.formula, p.proof)}


def verify(cert: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = main(["certify", "--verify", str(cert)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


@pytest.fixture(scope="module")
def straights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder holding a.json (tiny straight) and b.json (its two-row variant)."""
    folder = tmp_path_factory.mktemp("straights")
    variant = two_row_variant(tmp_path_factory.mktemp("tracks"))
    assert main(["certify", str(TINY), "-o", str(folder / "a.json")]) == 0
    assert main(["certify", str(variant), "-o", str(folder / "b.json")]) == 0
    return folder


@pytest.fixture
def folder(straights: Path, tmp_path: Path) -> Path:
    """A copy of `straights` that a test may damage."""
    return Path(shutil.copytree(straights, tmp_path / "d"))


@pytest.fixture(scope="module")
def circuit(circuit_certificate: CircuitCertificate) -> Path:
    """The documented circuit's certificate (cert.json): proofs with lemmas (non-empty files).
    The session's run (tests/conftest.py), which the tests here copy before damaging."""
    assert circuit_certificate.code == 0, circuit_certificate.stderr
    return circuit_certificate.folder


def test_same_name_and_m_star_keep_separate_proofs(folder: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    a, b = folder / "a.json", folder / "b.json"
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    assert da["track"]["name"] == db["track"]["name"]
    assert da["bfs"]["exact"]["m_star"] == db["bfs"]["exact"]["m_star"] == 3
    # reachability-cut, one-hot, kinematics, displacement
    assert len(pairs(a)) == len(pairs(b)) == 4
    assert names(a).isdisjoint(names(b))
    assert sorted(p.name for p in folder.iterdir()) == sorted({"a.json", "b.json"}
                                                              | names(a) | names(b))
    for cert in (a, b):
        code, out, err = verify(cert, capsys)
        assert (code, err) == (0, "") and out == [f"{cert}: verified: 4 proofs and their "
                                                  "formulas have their SHA-256 and every "
                                                  "proof refutes its formula (DRUP check)"]


def test_names_are_the_content_hash(folder: Path) -> None:
    """STEM-H.cnf / STEM-H.drup, H the SHA-256 of the formula's bytes then the proof's;
    the full hash of each file recorded beside its name."""
    for pair in pairs(folder / "a.json"):
        formula, proof = (folder / pair.formula).read_bytes(), (folder / pair.proof).read_bytes()
        h = hashlib.sha256(formula + proof).hexdigest()[:16]
        assert pair.formula.endswith(f"-{h}.cnf") and pair.proof.endswith(f"-{h}.drup")
        assert pair.formula.removesuffix(".cnf") == pair.proof.removesuffix(".drup")
        assert hashlib.sha256(formula).hexdigest() == pair.formula_sha256
        assert hashlib.sha256(proof).hexdigest() == pair.proof_sha256
    artefacts = [c["artefacts"] for f in json.loads((folder / "a.json").read_text())
                 ["figures"].values() for c in f["checks"] if "proof" in c["artefacts"]]
    assert artefacts and all(list(a)[:4] == ["proof", "proof sha256", "formula",
                                             "formula sha256"] for a in artefacts)


def test_identical_proofs_are_kept_not_rewritten(folder: Path) -> None:
    before = {n: os.stat(folder / n).st_ino for n in names(folder / "a.json")}
    assert main(["certify", str(TINY), "-o", str(folder / "again.json")]) == 0
    assert names(folder / "again.json") == set(before)
    assert {n: os.stat(folder / n).st_ino for n in before} == before


def test_run_stopped_before_its_certificate_leaves_the_old_one_valid(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Proofs first, certificate last: a run of another same-named track over a.json,
    stopped between the two, leaves a.json verifying (its proofs are untouched)."""
    old = (folder / "a.json").read_text()

    publish_pairs = certify_cli._publish_pair_files

    def stopped(*args: object) -> None:  # the proofs are published, then Ctrl-C
        publish_pairs(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(certify_cli, "_publish_pair_files", stopped)
    assert main(["certify", str(two_row_variant(tmp_path)), "-o", str(folder / "a.json")]) == 130
    capsys.readouterr()
    assert (folder / "a.json").read_text() == old
    assert not [p for p in folder.iterdir() if p.name.startswith(".racecert-")]
    assert verify(folder / "a.json", capsys)[0] == 0


def test_swapped_proof_pair_is_caught(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pairs(folder / "a.json")[0], pairs(folder / "b.json")[0]
    shutil.copyfile(folder / b.formula, folder / a.formula)
    shutil.copyfile(folder / b.proof, folder / a.proof)
    code, out, err = verify(folder / "a.json", capsys)
    assert code == 1 and err == ""
    assert out[0].startswith(f"{folder / a.formula}: SHA-256 ")
    assert "differs from the certificate's" in out[0]
    assert out[-1] == f"{folder / 'a.json'}: NOT verified: 1 problem in 4 proofs"
    assert verify(folder / "b.json", capsys)[0] == 0


def test_missing_file_is_caught(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = pairs(folder / "b.json")[1].proof
    (folder / gone).unlink()
    code, out, _ = verify(folder / "b.json", capsys)
    assert code == 1 and out[:-1] == [f"{folder / gone}: missing"]


def test_proof_that_does_not_refute_its_formula_is_caught(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Hashes that match (the certificate edited with the files) still need the DRUP
    check: a satisfiable formula is refuted by no proof."""
    cert = folder / "a.json"
    pair = pairs(cert)[0]
    (folder / pair.formula).write_text("p cnf 1 1\n1 0\n")
    new = hashlib.sha256(b"p cnf 1 1\n1 0\n").hexdigest()
    cert.write_text(cert.read_text().replace(pair.formula_sha256, new))
    code, out, _ = verify(cert, capsys)
    assert code == 1 and len(out) == 2
    assert out[0].startswith(f"{folder / pair.proof}: the DRUP check rejects it as a "
                             f"refutation of {pair.formula}: ")


def test_one_corrupted_byte_in_a_proof_is_caught(circuit: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(shutil.copytree(circuit, tmp_path / "d"))
    pair = max(pairs(folder / "cert.json"), key=lambda p: (folder / p.proof).stat().st_size)
    data = bytearray((folder / pair.proof).read_bytes())
    assert data  # a proof with lemmas
    data[len(data) // 2] ^= 0x01
    (folder / pair.proof).write_bytes(bytes(data))
    code, out, _ = verify(folder / "cert.json", capsys)
    assert code == 1 and len(out) == 2 and out[0].startswith(f"{folder / pair.proof}: SHA-256 ")


def test_proof_copied_over_another_is_caught(circuit: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(shutil.copytree(circuit, tmp_path / "d"))
    assert verify(folder / "cert.json", capsys)[0] == 0
    found = pairs(folder / "cert.json")
    assert len(found) == 9  # the three lower bounds of m* and six continuity refutations
    by_content = {}
    for p in found:
        by_content.setdefault(p.proof_sha256, p)
    first, other = list(by_content.values())[:2]
    shutil.copyfile(folder / other.proof, folder / first.proof)
    code, out, _ = verify(folder / "cert.json", capsys)
    assert code == 1 and out[:-1] == [
        f"{folder / first.proof}: SHA-256 {other.proof_sha256[:16]}... differs from the "
        f"certificate's {first.proof_sha256[:16]}... (changed or replaced)"]


def test_certificate_without_proofs_verifies_nothing(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", str(TINY), "--json"]) == 0
    printed = capsys.readouterr().out
    assert NOT_WRITTEN in printed
    cert = tmp_path / "c.json"
    cert.write_text(printed)
    code, out, _ = verify(cert, capsys)
    assert code == 0 and out == [f"{cert}: names no proof files (written without --out, or "
                                 "no SAT bound was refuted): nothing to verify"]


@pytest.mark.parametrize("content, why", [
    (None, "cannot read"),
    (b"{not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "not a racecert certificate"),
    (b'{"figures": {"m": {"checks": [{"artefacts": 3}]}}}', "not a racecert certificate"),
    (b'{"figures": {"m": {"checks": [{"method": "SAT", "artefacts": {"proof": "p.drup"}}]}}}',
     "no 'proof sha256' beside the proof"),
    (b'{"figures": {"m": {"checks": [{"artefacts": {"proof": "../p.drup", "proof sha256": "'
     + b"0" * 64 + b'", "formula": "p.cnf", "formula sha256": "' + b"0" * 64 + b'"}}]}}}',
     "is not a file name beside the certificate"),
    (b'{"figures": {"m": {"checks": [{"artefacts": {"proof": "p.drup", "proof sha256": "x", '
     b'"formula": "p.cnf", "formula sha256": "x"}}]}}}', "is not a SHA-256"),
])
def test_malformed_certificate_is_exit_2(tmp_path: Path, content: bytes | None, why: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "c.json"
    if content is not None:
        cert.write_bytes(content)
    code, out, err = verify(cert, capsys)
    assert code == 2 and out == [] and err.count("\n") == 1
    assert err.startswith("error: ") and why in err


@pytest.mark.parametrize("argv", [
    ["certify"],
    ["certify", str(TINY), "--verify", "c.json"],
    ["certify", "--verify", "c.json", "-o", "d.json"],
])
def test_verify_or_track_not_both(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
