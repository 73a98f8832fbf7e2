"""Compare another engine's results for a track with racecert's own (docs/crosscheck.md).

The other engine's RESULT.json is read by `racecert.certification.result_file`
(bounded: size, nesting, integer digits, UTF-8) and checked against the schema
of `racecert.certification.result_schema` (types and ranges). `crosscheck` compares
every given figure with racecert's typed `Analysis` (`crosscheck_ours`), and
returns one `Comparison` per figure, plus one per key that is not compared
(ignored report keys, unknown keys: reported, never fatal).

How a figure is compared follows from what the file gives:

- integers, booleans, strings and exact fractions: equality;
- exact lengths (radical-sum strings): exact equality, decided without
  factoring (`racecert.certification.radical_text`);
- numbers: within the checker's tolerance, never the file's —
  `PERCENT_TOLERANCE` for figures printed with two decimals
  (`TWO_DECIMALS`), `FLOAT_TOLERANCE` for every other number;
- a figure racecert does not have (m* of an unreachable track, ...): a
  disagreement, with racecert's reason.

Trajectories given as positions (or accelerations) are replayed move by move
with the independent geometry (`racecert.independent.geometry`), never with the
model that produced racecert's own numbers; their move count and exact length
are recomputed from the positions and compared.

This module reads `racecert.analysis` objects, so it sits above the analysis
(with the certificate), not beside the independent checkers it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from racecert.analysis.pipeline import Analysis
from racecert.certification.crosscheck_ours import TRAJECTORY_KEYS, Absent, OurFigures
from racecert.certification.radical_text import RadicalText
from racecert.certification.result_file import ResultError
from racecert.certification.result_schema import OtherResult, parse_result, shown
from racecert.independent.geometry import Geometry
from racecert.model.radicals import RadicalSum, length_of_moves

__all__ = ["Comparison", "OtherResult", "ResultError", "crosscheck", "parse_result"]

FLOAT_TOLERANCE = 1e-6
"""Absolute tolerance for numbers (float lengths, fractions given as floats)."""
PERCENT_TOLERANCE = 0.005
"""Absolute tolerance for the figures printed with two decimals."""
TWO_DECIMALS = frozenset({"continuable_percent", "continuable_percent_editor", "score.total"})

AGREE, DISAGREE, IGNORED, UNKNOWN = "agree", "disagree", "ignored", "unknown"


@dataclass(frozen=True)
class Comparison:
    """One row: the figure (dotted path), the other engine's value, racecert's, the verdict.

    `verdict` is "agree" or "disagree" for a compared figure, "ignored" for a
    known key that is not a figure, "unknown" for a key the schema lacks.
    """

    figure: str
    theirs: str
    ours: str
    verdict: str
    note: str = ""


def crosscheck(analysis: Analysis, other: OtherResult) -> list[Comparison]:
    """Compare every figure of `other` with racecert's `analysis` of the same track.

    A trajectory given with positions (or accelerations) is first replayed
    with the independent geometry: positions that are not a valid trajectory
    first arriving at its last move disagree, whatever the figures say.
    """
    ours = OurFigures(analysis)
    rows: list[Comparison] = []
    geometry: Geometry | None = None
    replayed: set[str] = set()
    for path, theirs in other.figures.items():
        key, _, name = path.partition(".")
        if key in TRAJECTORY_KEYS and name in ("positions", "accelerations"):
            if key not in replayed:
                replayed.add(key)
                geometry = geometry or Geometry(analysis.track)
                rows.extend(_replay_rows(geometry, key, other.figures, ours))
            continue
        rows.append(compare_figure(path, theirs, ours.figure(path)))
    rows.extend(Comparison(s.key, s.value, "-", UNKNOWN if s.unknown else IGNORED, s.reason)
                for s in other.skipped)
    return rows


def compare_figure(path: str, theirs: Any, ours: Any) -> Comparison:
    """One figure: exact equality, exact radical equality, or a float within tolerance."""
    if isinstance(ours, Absent):
        return Comparison(path, show(theirs), "-", DISAGREE,
                          f"racecert has no such figure: {ours.why}")
    if isinstance(theirs, float):
        tol = PERCENT_TOLERANCE if path in TWO_DECIMALS else FLOAT_TOLERANCE
        diff = abs(theirs - _as_float(ours))
        exact = "" if isinstance(ours, float) or len(show(ours)) > 24 else f"{show(ours)} = "
        return Comparison(path, repr(theirs), f"{exact}{_as_float(ours)!r}",
                          _verdict(diff <= tol), f"|diff| = {diff:.3g}, tolerance {tol:g}")
    if isinstance(theirs, RadicalText):
        return Comparison(path, show(theirs), show(ours), _verdict(theirs.equals(ours)),
                          "exact")
    ok = isinstance(theirs, bool) == isinstance(ours, bool) and theirs == ours
    note = ""
    if path == "mode" and not ok:
        note = f"computed with the {theirs} key: run with --mode {theirs}"
    return Comparison(path, show(theirs), show(ours), _verdict(ok), note)


def _replay_rows(geometry: Geometry, key: str, figures: dict[str, Any],
                 ours: OurFigures) -> list[Comparison]:
    """Rows for a trajectory given as positions and/or accelerations (see `crosscheck`)."""
    rows: list[Comparison] = []
    pos = figures.get(f"{key}.positions")
    acc = figures.get(f"{key}.accelerations")
    source = "positions"
    if acc is not None:
        driven = drive(geometry.track.car.position, acc)
        if pos is None:
            pos, source = driven, "accelerations"
        else:
            ok = driven == pos
            rows.append(Comparison(f"{key}.accelerations", f"{len(acc)} moves", "-",
                                   _verdict(ok), "drive from the car to the given positions"
                                   if ok else "do not drive to the given positions"))
    ok, why = geometry.replay(list(pos))
    rows.append(Comparison(f"{key}.{source}", f"{len(pos) - 1} moves", "replayed",
                           _verdict(ok), f"independent geometry: {why}"))
    if ok:  # valid moves: velocities are bounded by the grid, the length is cheap and exact
        length = length_of_moves((b[0] - a[0], b[1] - a[1]) for a, b in pairwise(pos))
        rows.append(compare_figure(f"{key}.moves (from {source})", len(pos) - 1,
                                   ours.figure(f"{key}.moves")))
        rows.append(compare_figure(f"{key}.length (from {source})", length,
                                   ours.figure(f"{key}.length_exact")))
    return rows


def drive(start: tuple[int, int], accelerations: tuple[tuple[int, int], ...]
          ) -> tuple[tuple[int, int], ...]:
    """The positions reached from `start` at rest by applying `accelerations`.

    >>> drive((1, 1), ((1, 0), (1, 0)))
    ((1, 1), (2, 1), (4, 1))
    """
    (x, y), vx, vy = start, 0, 0
    out = [(x, y)]
    for ax, ay in accelerations:
        vx, vy = vx + ax, vy + ay
        x, y = x + vx, y + vy
        out.append((x, y))
    return tuple(out)


def _as_float(value: Any) -> float:
    if isinstance(value, RadicalSum):
        return value.to_float()
    return float(value)


def _verdict(ok: bool) -> str:
    return AGREE if ok else DISAGREE


def show(value: Any) -> str:
    """A figure as text: true/false, p/q, radical sums, numbers, escaped strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, Fraction, RadicalSum, RadicalText)):
        return str(value)
    return shown(str(value), 80)
