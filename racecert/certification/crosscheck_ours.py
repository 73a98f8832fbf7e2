"""racecert's side of a cross-check: each figure read from the typed `Analysis`.

`OurFigures(analysis).figure(path)` gives the value a RESULT.json figure is
compared with (the dotted paths of `racecert.certification.result_schema`), as an
exact Python value: an int, a bool, a str, a `Fraction`, a `RadicalSum`, or a
float where racecert's figure is itself a float. A figure racecert does not
have (m* of an unreachable track, m_cont when an optimal arrival continues)
is an `Absent` saying why: a file that gives it anyway disagrees.

Nothing here reads JSON: the objects are those the pipeline built
(`Analysis`, `Continuity`, `Representatives`, `Score`, `Coverage`), so the
check cannot inherit a mistake of racecert's own JSON rendering.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from racecert.analysis.library import eligible_representatives
from racecert.analysis.pipeline import Analysis
from racecert.analysis.representatives import Extreme, Representatives
from racecert.analysis.score import WEIGHTS, Score
from racecert.analysis.trajectory import Trajectory
from racecert.model.radicals import RadicalSum
from racecert.oracle.continuity import Continuity

TRAJECTORY_KEYS = ("yellow", "green", "blue", "trai", "troi", "tray")


@dataclass(frozen=True)
class Absent:
    """racecert has no such figure, and `why`."""

    why: str


@dataclass(frozen=True)
class OurTrajectory:
    """One of racecert's representatives: the trajectory, its exact length, its ties."""

    trajectory: Trajectory
    length: RadicalSum
    ties: int | None


UNREACHABLE = Absent("unreachable: no trajectory arrives")


class OurFigures:
    """racecert's figures for one analysis, computed on demand from the typed objects."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis

    # -- the parts ---------------------------------------------------------------------

    @property
    def continuity(self) -> Continuity | Absent:
        return UNREACHABLE if self.a.continuity is None else self.a.continuity

    @cached_property
    def eligible(self) -> tuple[Representatives | None, int | None]:
        """trai/troi's source and move count (the library's eligible representatives)."""
        return eligible_representatives(self.a)

    def trajectory(self, key: str) -> OurTrajectory | Absent:
        """racecert's trajectory for a RESULT key (yellow, green, blue, trai, troi, tray)."""
        if key in ("yellow", "tray"):
            t = self.a.yellow_trajectory
            return UNREACHABLE if t is None else OurTrajectory(t, t.length, None)
        reps = self.a.representatives if key in ("green", "blue") else self.eligible[0]
        if reps is None:
            return UNREACHABLE if not self.a.bfs.reachable else Absent(
                "no eligible optimal trajectory")
        ext: Extreme = reps.green if key in ("green", "troi") else reps.blue
        return OurTrajectory(ext.trajectory, ext.length, ext.ties)

    # -- one figure --------------------------------------------------------------------

    def figure(self, path: str) -> Any:
        """racecert's value for the dotted `path`, or an Absent."""
        head, _, rest = path.partition(".")
        if head in TRAJECTORY_KEYS:
            return self._trajectory_field(head, rest)
        if head == "score":
            return self._score(rest)
        if head == "coverage":
            return self._coverage(rest)
        getter = _TOP.get(path)
        if getter is None:  # the schema and this table list the same keys
            raise KeyError(f"no racecert figure for {path}")
        return getter(self)

    def _trajectory_field(self, key: str, name: str) -> Any:
        t = self.trajectory(key)
        if isinstance(t, Absent):
            return t
        if name == "moves":
            return t.trajectory.moves
        if name in ("length", "length_exact"):
            return t.length
        if name == "ties":
            return Absent(f"racecert counts no ties for {key}") if t.ties is None else t.ties
        raise KeyError(f"no racecert figure for {key}.{name}")

    def _coverage(self, name: str) -> Any:
        cov = self.a.coverage
        if cov is None:
            return UNREACHABLE
        return {"red": cov.fraction, "red_float": cov.fraction,
                "touched_cells": len(cov.cells), "drivable_cells": cov.drivable}[name]

    def _score(self, name: str) -> Any:
        s = self.a.score
        if s is None:
            return UNREACHABLE if not self.a.bfs.reachable else Absent("no score")
        if name.startswith("components."):
            return _component(s, name.removeprefix("components."))
        return {"total": s.total, "band": s.band, "raw": s.raw, "capped": s.capped,
                "corrector": s.corrector, "corrector_exact": s.corrector}[name]


def _component(s: Score, path: str) -> Any:
    """A figure of one score component (value, exact, weights, diversity's parts)."""
    name, _, field = path.partition(".")
    if name == "continuity" and not s.circuit:
        return Absent("a stage's score has no continuity component")
    weights = {k: w for k, w in WEIGHTS.items() if s.circuit or k != "continuity"}
    exact_value = name != "diversity" or s.euclid.exact
    parts: dict[str, Any] = {
        "value": s.components[name],
        "exact": s.components[name] if exact_value else Absent("irrational"),
        "weight": weights[name],
        "effective_weight": Fraction(weights[name], sum(weights.values())),
        "euclid_sep": (s.euclid.lo + s.euclid.hi) / 2,
        "euclid_sep_exact": s.euclid.lo if s.euclid.exact else Absent("irrational"),
        "spatial_sep": s.spatial_sep,
        "spatial_sep_exact": s.spatial_sep,
    }
    return parts[field]


def _cont(get: Callable[[Continuity], Any]) -> Callable[[OurFigures], Any]:
    def figure(o: OurFigures) -> Any:
        c = o.continuity
        return c if isinstance(c, Absent) else get(c)
    return figure


def _m_cont(c: Continuity) -> int | Absent:
    if c.m_cont is not None:
        return c.m_cont
    if not c.applicable:
        return Absent("continuity does not apply on a stage")
    return Absent("some optimal arrival continues (m_cont exists only when none does)")


def _m_star(o: OurFigures) -> int | Absent:
    return UNREACHABLE if o.a.bfs.m_star is None else o.a.bfs.m_star


def _kind_declared(o: OurFigures) -> str | Absent:
    return o.a.track.kind or Absent("the track file declares no kind")


def _kinematic(o: OurFigures) -> bool | Absent:
    k = o.a.aptitude.kinematic
    return Absent("not searched: the topological precondition failed") if k is None else k


def _representatives_moves(o: OurFigures) -> int | Absent:
    moves = o.eligible[1]
    return Absent("no eligible optimal trajectory") if moves is None else moves


def _editor_percent(o: OurFigures) -> Fraction | Absent:
    c = o.continuity
    if isinstance(c, Absent):
        return c
    return 100 * Fraction(c.continuable_count_editor, o.a.bfs.optimal_count)


_TOP: dict[str, Callable[[OurFigures], Any]] = {
    "sha256": lambda o: o.a.track.sha256,
    "mode": lambda o: o.a.mode,
    "reachable": lambda o: o.a.bfs.reachable,
    "m_star": _m_star,
    "optimal_count": lambda o: o.a.bfs.optimal_count,
    "final_states": lambda o: o.a.bfs.final_states,
    "kind": lambda o: o.a.kind,
    "kind_declared": _kind_declared,
    "kind_matches_declared": lambda o: o.a.track.kind in (None, o.a.kind),
    "aptitude.kind": lambda o: o.a.aptitude.kind,
    "aptitude.topological": lambda o: o.a.aptitude.topological,
    "aptitude.kinematic": _kinematic,
    "continuity_applicable": _cont(lambda c: c.applicable),
    "continuable_count": _cont(lambda c: c.continuable_count),
    "continuable_count_editor": _cont(lambda c: c.continuable_count_editor),
    "continuable_percent": _cont(lambda c: 100 * c.percent),
    "continuable_percent_editor": _editor_percent,
    "continuable_fraction_exact": _cont(lambda c: c.percent),
    "m_cont": _cont(_m_cont),
    "representatives_moves": _representatives_moves,
}
