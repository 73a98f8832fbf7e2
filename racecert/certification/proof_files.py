"""The proof files of a written certificate: named by their content's SHA-256, re-checked.

Why: the proofs used to be named by the track's name and the step count alone, so two
tracks of the same name and m* certified into one folder shared a file name, and the
second run's proofs were renamed over the first certificate's (which then named proofs
of another formula). A name that is a hash of the content cannot stand for two contents.

Naming (`name_proofs`). A refuted SAT formula (DIMACS, `.cnf`) and its DRUP proof
(`.drup`) are published as one pair, `STEM-H.cnf` and `STEM-H.drup`: STEM is the name the
check gave (`tiny-straight-T2`, `...-onehot-T16`, `...-continuity-3`) and H the first
`NAME_DIGITS` hex digits of the SHA-256 of the formula's bytes followed by the proof's
bytes. The DIMACS header counts the formula's clauses, so it fixes where the formula
ends: two different pairs never hash the same bytes. A pair keeps one stem, so an outside
checker finds the formula beside its proof (`drat-trim STEM-H.cnf STEM-H.drup`).

Recording. In the certificate's JSON each proof artefact (`proof`, or `proof 1`,
`proof 2`, ... in a check with several) holds the proof's file name, relative to the
certificate's folder, and is followed by `<key> sha256` (the proof file's full SHA-256),
`formula<N>` (the formula's file name) and `formula<N> sha256`.

Verification (`verify_certificate`): every file the certificate names exists and has its
SHA-256, and each proof refutes its formula by the project's own DRUP checker
(`racecert.independent.drup`); each problem is one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from racecert.independent.drup import check_drup, read_dimacs

NAME_DIGITS = 16
"""Hex digits of the pair's SHA-256 in its file names (64 bits: names of distinct contents
do not meet by chance; the certificate records the full hashes)."""
NOT_WRITTEN = "(not written)"
"""The proof artefact of a certificate written without -o (the proof stayed in memory)."""
PROOF_KEY = re.compile(r"proof( \d+)?")
"""Artefact keys that name a proof file ("proof", "proof 1", ...; not "proof check")."""
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


class CertificateFormatError(ValueError):
    """A certificate that cannot be read or is not one; the message is one line."""


@dataclass(frozen=True)
class ProofPair:
    """One formula and its proof as a certificate names them: file names, full SHA-256s."""

    formula: str
    formula_sha256: str
    proof: str
    proof_sha256: str


def proof_target(out_dir: str | Path | None, name: str) -> Path | None:
    """Where a check writes a proof: in `out_dir`, or nowhere when none is given (the
    checker reads the proof from memory, so no temp folder is left behind on any exit
    path)."""
    if out_dir is None:
        return None
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    return directory / name


def track_slug(name: str) -> str:
    """A track's name as a proof file's stem: lower case, every other character '-'."""
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "track"


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes in hex (read in chunks: proofs reach 100 MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def hash_pair(formula: Path, proof: Path) -> ProofPair:
    """The pair's published names (`STEM-H.cnf`, `STEM-H.drup`, STEM the proof's stem) and
    each file's SHA-256; H is the SHA-256 of the formula's bytes then the proof's."""
    pair = hashlib.sha256()
    own = []
    for path in (formula, proof):
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
                pair.update(chunk)
        own.append(digest.hexdigest())
    stem = f"{proof.stem}-{pair.hexdigest()[:NAME_DIGITS]}"
    return ProofPair(f"{stem}.cnf", own[0], f"{stem}.drup", own[1])


def _checks(data: dict) -> Iterator[dict]:
    """Every check of a certificate's JSON: the figures' checks, then `other_checks`."""
    for figure in data["figures"].values():
        yield from figure["checks"]
    yield from data.get("other_checks", [])


def name_proofs(data: dict, staging: Path) -> dict[Path, tuple[str, str]]:
    """Rename, in the certificate JSON `data` (changed in place), every proof written into
    `staging` to its content name, with the hashes and the formula beside it (see the
    module docstring). Returns {staged file: (published name, SHA-256)} for every formula
    and proof the certificate names; a staged file it does not name is not published.

    Raises OSError when a staged proof or its formula cannot be read.
    """
    pairs: dict[Path, ProofPair] = {}
    for check in _checks(data):
        artefacts: dict[str, object] = {}
        for key, value in check["artefacts"].items():
            artefacts[key] = value
            if not (PROOF_KEY.fullmatch(key) and isinstance(value, str) and value
                    and Path(value).parent == staging):
                continue
            proof = Path(value)
            if proof not in pairs:
                pairs[proof] = hash_pair(proof.with_suffix(".cnf"), proof)
            pair = pairs[proof]
            suffix = key.removeprefix("proof")
            artefacts[key] = pair.proof
            artefacts[f"{key} sha256"] = pair.proof_sha256
            artefacts[f"formula{suffix}"] = pair.formula
            artefacts[f"formula{suffix} sha256"] = pair.formula_sha256
        check["artefacts"] = artefacts
    files: dict[Path, tuple[str, str]] = {}
    for proof, pair in pairs.items():
        files[proof.with_suffix(".cnf")] = (pair.formula, pair.formula_sha256)
        files[proof] = (pair.proof, pair.proof_sha256)
    return files


def _file_name(value: object, where: str) -> str:
    """A file name as the certificate must give it: a bare name in its own folder."""
    if not isinstance(value, str) or value in ("", ".", "..") or Path(value).name != value:
        raise CertificateFormatError(f"{where}: {value!r} is not a file name beside the "
                                     "certificate")
    return value


def _sha256(value: object, where: str) -> str:
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise CertificateFormatError(f"{where}: {value!r} is not a SHA-256 (64 hex digits)")
    return value


def named_proofs(data: object) -> list[ProofPair]:
    """Every (formula, proof) pair a certificate's JSON names, once each, in order.

    Raises CertificateFormatError when `data` is not a certificate, or a proof artefact
    lacks its hash or formula (a certificate written before proofs were hashed).
    """
    try:
        checks = list(_checks(data))  # type: ignore[arg-type]
        artefact_sets = [c["artefacts"] for c in checks]
        if not all(isinstance(a, dict) for a in artefact_sets):
            raise TypeError
    except (KeyError, TypeError, AttributeError):
        raise CertificateFormatError("not a racecert certificate (no figures with checks "
                                     "and artefacts)") from None
    pairs: dict[tuple[str, str], ProofPair] = {}
    for check, artefacts in zip(checks, artefact_sets, strict=True):
        for key, value in artefacts.items():
            if not PROOF_KEY.fullmatch(key) or value == NOT_WRITTEN:
                continue
            where = f"check {check.get('method', '?')!r}, artefact {key!r}"
            suffix = key.removeprefix("proof")
            for needed in (f"{key} sha256", f"formula{suffix}", f"formula{suffix} sha256"):
                if needed not in artefacts:
                    raise CertificateFormatError(
                        f"{where}: no {needed!r} beside the proof (a certificate written "
                        "before proofs were named by their SHA-256?)")
            pair = ProofPair(_file_name(artefacts[f"formula{suffix}"], where),
                             _sha256(artefacts[f"formula{suffix} sha256"], where),
                             _file_name(value, where), _sha256(artefacts[f"{key} sha256"], where))
            pairs.setdefault((pair.formula, pair.proof), pair)
    return list(pairs.values())


def read_certificate(path: Path) -> object:
    """A certificate file's JSON; CertificateFormatError (one line) when unreadable."""
    try:
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise CertificateFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise CertificateFormatError(f"{path}: not JSON: {exc}") from None


@dataclass(frozen=True)
class Verification:
    """What `verify_certificate` found: the pairs checked and one line per problem."""

    pairs: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _file_problem(path: Path, expected: str) -> str | None:
    """None when `path` exists with SHA-256 `expected`, else one line naming the file."""
    try:
        actual = sha256_file(path)
    except FileNotFoundError:
        return f"{path}: missing"
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror or exc}"
    if actual != expected:
        return (f"{path}: SHA-256 {actual[:NAME_DIGITS]}... differs from the certificate's "
                f"{expected[:NAME_DIGITS]}... (changed or replaced)")
    return None


def _proof_problem(formula: Path, proof: Path) -> str | None:
    """None when the DRUP checker accepts `proof` as a refutation of `formula`."""
    try:
        clauses, _ = read_dimacs(formula)
    except (OSError, ValueError) as exc:
        return f"{formula}: not a DIMACS formula: {' '.join(str(exc).split())}"
    try:
        result = check_drup(clauses, proof.read_bytes())
    except OSError as exc:
        return f"{proof}: cannot read: {exc.strerror or exc}"
    if not result.verified:
        return (f"{proof}: the DRUP check rejects it as a refutation of {formula.name}: "
                f"{' '.join(result.reason.split())}")
    return None


def verify_certificate(path: Path) -> Verification:
    """Re-check the proof files a written certificate names (files beside it).

    Each formula and proof must exist with the SHA-256 the certificate records, and each
    proof whose files both match must refute its formula by `check_drup`. Raises
    CertificateFormatError when the certificate is unreadable or malformed.
    """
    pairs = named_proofs(read_certificate(path))
    folder = path.parent
    problems = []
    for pair in pairs:
        formula, proof = folder / pair.formula, folder / pair.proof
        found = [p for p in (_file_problem(formula, pair.formula_sha256),
                             _file_problem(proof, pair.proof_sha256)) if p]
        if not found:
            found = [p for p in (_proof_problem(formula, proof),) if p]
        problems += found
    return Verification(len(pairs), tuple(problems))
