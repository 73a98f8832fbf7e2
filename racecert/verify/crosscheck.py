"""Compare another engine's results for a track with racecert's own (docs/crosscheck.md).

The other engine's RESULT.json uses the key names of racecert's report
(docs/report.md); every key is optional. `parse_result` validates it
(`ResultError` names the key and what is wrong), `crosscheck` compares it
with racecert's report and library record, which the caller computes (this
module sits below racecert.analysis and never imports it), and returns one
`Comparison` per compared figure.

Trajectories of the other engine (yellow/green/blue/trai/troi/tray
positions) are replayed move by move with the independent geometry
(`racecert.verify.geometry`), never with the model that produced racecert's
own numbers, and their exact length is recomputed from the positions.

>>> parse_result({"m_star": 7}).values["m_star"]
7
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from racecert.model.track import Track
from racecert.verify.geometry import Geometry
from racecert.verify.radicals import RadicalSum, length_of_moves

COUNT_KEYS = ("optimal_count", "continuable_count")
TRAJ_KEYS = ("yellow", "green", "blue", "trai", "troi", "tray")
TRAJ_FIELDS = {"moves", "length", "length_exact", "ties", "positions"}
TRAJ_IGNORED = {"accelerations", "selection", "certified_minimum", "states_settled"}
TOP_KEYS = {"m_star", *COUNT_KEYS, "continuable_percent", "score", "tolerance", *TRAJ_KEYS}
IGNORED_KEYS = {"track", "sha256", "path", "mode", "reachable", "final_states",
                "states_explored", "seconds", "timings", "kind", "kind_declared",
                "kind_matches_declared", "aptitude", "continuable_count_editor",
                "continuable_fraction_exact", "m_cont", "bound", "coverage",
                "representatives_moves", "continuity_applicable", "slots",
                "m_cont_null_reason", "m_cont_exact", "opening_active_at_arrival",
                "opening_moves_after_arrival"}
"""Keys of racecert's own report (docs/report.md) that are accepted but not compared, so that
`racecert analyze --json` output can be cross-checked as it is."""
PERCENT_TOLERANCE = 0.005  # percentages are printed with 2 decimals


class ResultError(ValueError):
    """The RESULT.json is malformed; the message names the key and the problem."""


@dataclass(frozen=True)
class OtherResult:
    """A validated RESULT.json: plain values and trajectory objects, plus the tolerance."""

    values: dict[str, Any]
    tolerance: float


@dataclass(frozen=True)
class Comparison:
    """One compared figure: the other engine's value, racecert's, and the verdict."""

    figure: str
    theirs: str
    ours: str
    verdict: str  # "agree" | "disagree" | "not-comparable"
    note: str = ""


def _count(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ResultError(f"{key}: expected an integer or a decimal string, got {v!r}")
    if isinstance(v, str):
        if not v.strip().isdigit():
            raise ResultError(f"{key}: {v!r} is not a decimal integer")
        return int(v)
    if v < 0:
        raise ResultError(f"{key}: negative count {v}")
    return v


def _number(key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ResultError(f"{key}: expected a number, got {v!r}")
    return float(v)


def _length(key: str, v: Any) -> RadicalSum | float:
    """An exact radical string ("3*sqrt(2) + 7") or a float."""
    if isinstance(v, str):
        try:
            return RadicalSum.parse(v)
        except ValueError as exc:
            raise ResultError(f"{key}: not an exact radical sum: {exc}") from exc
    return _number(key, v)


def _positions(key: str, v: Any) -> list[tuple[int, int]]:
    if not isinstance(v, list) or len(v) < 2:
        raise ResultError(f"{key}: expected a list of at least two [x, y] positions")
    out = []
    for i, p in enumerate(v):
        if (not isinstance(p, list) or len(p) != 2
                or not all(isinstance(c, int) and not isinstance(c, bool) for c in p)):
            raise ResultError(f"{key}[{i}]: expected [x, y] integers, got {p!r}")
        out.append((p[0], p[1]))
    return out


def _trajectory(key: str, v: Any) -> dict[str, Any]:
    if isinstance(v, (str, int, float)) and not isinstance(v, bool):
        return {"length": _length(key, v)}
    if not isinstance(v, dict):
        raise ResultError(f"{key}: expected an object, a length string or a number")
    unknown = set(v) - TRAJ_FIELDS - TRAJ_IGNORED
    if unknown:
        raise ResultError(f"{key}: unknown field(s) {sorted(unknown)}; allowed: "
                          f"{sorted(TRAJ_FIELDS)}")
    out: dict[str, Any] = {}
    if "moves" in v:
        out["moves"] = _count(f"{key}.moves", v["moves"])
    if "length_exact" in v:
        out["length"] = _length(f"{key}.length_exact", v["length_exact"])
    elif "length" in v:
        out["length"] = _length(f"{key}.length", v["length"])
    if "ties" in v:
        out["ties"] = _count(f"{key}.ties", v["ties"])
    if "positions" in v:
        out["positions"] = _positions(f"{key}.positions", v["positions"])
    return out


def parse_result(data: Any) -> OtherResult:
    """Validate a decoded RESULT.json (see docs/crosscheck.md); ResultError when malformed."""
    if not isinstance(data, dict):
        raise ResultError("the top level must be a JSON object")
    unknown = set(data) - TOP_KEYS - IGNORED_KEYS
    if unknown:
        raise ResultError(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(TOP_KEYS)}")
    values: dict[str, Any] = {}
    if "m_star" in data:
        values["m_star"] = None if data["m_star"] is None else _count("m_star", data["m_star"])
    for k in COUNT_KEYS:  # null = not given (e.g. continuity on a stage)
        if data.get(k) is not None:
            values[k] = _count(k, data[k])
    if data.get("continuable_percent") is not None:
        values["continuable_percent"] = _number("continuable_percent",
                                                data["continuable_percent"])
    if data.get("score") is not None:
        s = data["score"]
        values["score"] = _number("score.total", s.get("total") if isinstance(s, dict) else s)
    for k in TRAJ_KEYS:
        if k in data and data[k] is not None:
            values[k] = _trajectory(k, data[k])
    tol = _number("tolerance", data.get("tolerance", 1e-6))
    if tol < 0:
        raise ResultError("tolerance: must be >= 0")
    return OtherResult(values, tol)


# -- comparison ------------------------------------------------------------------------


def _cmp_length(figure: str, theirs: RadicalSum | float, ours_exact: str | None, tol: float
                ) -> Comparison:
    if ours_exact is None:
        return Comparison(figure, str(theirs), "-", "not-comparable", "racecert has no value")
    ours = RadicalSum.parse(ours_exact)
    if isinstance(theirs, RadicalSum):
        ok = theirs == ours
        return Comparison(figure, str(theirs), str(ours), "agree" if ok else "disagree",
                          "exact")
    diff = abs(theirs - ours.to_float())
    ok = diff <= tol
    return Comparison(figure, repr(theirs), f"{ours} = {ours.to_float():.9f}",
                      "agree" if ok else "disagree", f"|diff| = {diff:.3g}, tolerance {tol:g}")


def _plain(figure: str, theirs: Any, ours: Any) -> Comparison:
    if ours is None:
        return Comparison(figure, str(theirs), "-", "not-comparable", "racecert has no value")
    ok = theirs == ours
    return Comparison(figure, str(theirs), str(ours), "agree" if ok else "disagree")


def _ours_traj(report: dict[str, Any], library: dict[str, Any], key: str) -> dict | None:
    source = library if key in ("trai", "troi", "tray") else report
    return source.get(key)


def crosscheck(track: Track, other: OtherResult, report: dict[str, Any],
               library: dict[str, Any]) -> list[Comparison]:
    """Compare `other` with racecert's `report` (Analysis.to_json()) and `library` record.

    A trajectory given with positions is first replayed with the independent
    geometry: a position list that is not a valid trajectory arriving at its
    last move is a disagreement, whatever the figures say.
    """
    v, tol = other.values, other.tolerance
    out: list[Comparison] = []
    if "m_star" in v:
        out.append(_plain("m_star", v["m_star"], report.get("m_star")))
    for k in COUNT_KEYS:
        if k in v:
            ours = report.get(k)
            out.append(_plain(k, v[k], None if ours is None else int(ours)))
    if "continuable_percent" in v:
        ours = report.get("continuable_percent")
        if ours is None:
            out.append(Comparison("continuable_percent", str(v["continuable_percent"]), "-",
                                  "not-comparable", "racecert has no value"))
        else:
            t = max(tol, PERCENT_TOLERANCE)
            diff = abs(v["continuable_percent"] - ours)
            out.append(Comparison("continuable_percent", str(v["continuable_percent"]),
                                  f"{ours:.6f}", "agree" if diff <= t else "disagree",
                                  f"|diff| = {diff:.3g}, tolerance {t:g}"))
    if "score" in v:
        score = report.get("score") or {}
        ours = score.get("total")
        if ours is None:
            out.append(Comparison("score", str(v["score"]), "-", "not-comparable",
                                  "racecert has no score"))
        else:
            diff = abs(v["score"] - ours)
            out.append(Comparison("score", str(v["score"]), str(ours),
                                  "agree" if diff <= PERCENT_TOLERANCE else "disagree",
                                  "scores are rounded to 2 decimals"))
    geometry = Geometry(track)
    for k in TRAJ_KEYS:
        if k not in v:
            continue
        t = v[k]
        ours = _ours_traj(report, library, k) or {}
        if "positions" in t:
            pos = t["positions"]
            ok, why = geometry.replay(pos)
            out.append(Comparison(f"{k}.positions", f"{len(pos) - 1} moves", "replayed",
                                  "agree" if ok else "disagree", why))
            exact = length_of_moves((b[0] - a[0], b[1] - a[1]) for a, b in pairwise(pos))
            out.append(_cmp_length(f"{k}.length (from positions)", exact,
                                   ours.get("length_exact"), tol))
        if "moves" in t:
            out.append(_plain(f"{k}.moves", t["moves"], ours.get("moves")))
        if "length" in t:
            out.append(_cmp_length(f"{k}.length", t["length"], ours.get("length_exact"), tol))
        if "ties" in t:
            ties = ours.get("ties")
            out.append(_plain(f"{k}.ties", t["ties"], None if ties is None else int(ties)))
    return out
