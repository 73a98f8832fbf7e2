"""What the page draws and lists, built from the typed `Analysis` and `Certificate`.

The page's figures table has one row per certified figure (the names of
`racecert.certification.figures.FIGURES`), so that Certify can put each
figure's verdict and methods beside the value Analyse showed. Trajectories
carry, per position, the layer the exact rules put the car on (bridge or
tunnel), and per move its velocity and exact speed, for the hover card.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from racecert.analysis.layers import position_layers
from racecert.analysis.pipeline import Analysis
from racecert.analysis.trajectory import Trajectory
from racecert.certification.figures import FIGURES
from racecert.model.radicals import RadicalSum

if TYPE_CHECKING:  # an analysis job's process never loads the certificate's solvers
    from racecert.certification.certificate import Certificate

LABELS = {
    "move_validity": "move validity",
    "reachable": "reachable",
    "m_star": "m* (minimum moves)",
    "optimal_count": "optimal trajectories",
    "final_states": "distinct final states",
    "kind": "kind (computed)",
    "continuable_count": "continuable (race rule)",
    "continuable_count_editor": "continuable (editor)",
    "m_cont": "m_cont",
    "yellow_moves": "yellow: moves",
    "yellow_length": "yellow: length",
    "green_length": "green: length",
    "green_ties": "green: tied trajectories",
    "blue_length": "blue: length",
    "blue_ties": "blue: tied trajectories",
    "coverage": "red coverage",
    "score": "score",
}
TITLES = {"yellow": "yellow: shortest overall", "green": "green: shortest optimal",
          "blue": "blue: longest optimal"}


def pretty_radical(text: str) -> str:
    """'3 + 2*sqrt(2) + sqrt(5)' as '3 + 2√2 + √5' (the tracks README's notation).

    >>> pretty_radical("3 + 2*sqrt(2) + sqrt(5)")
    '3 + 2√2 + √5'
    """
    return re.sub(r"\*?sqrt\((\d+)\)", r"√\1", text)


def _count(text: str) -> str:
    return f"{int(text):,}"


def _lengths(a: Analysis) -> dict[str, RadicalSum]:
    """The exact lengths behind the *_length figures (for their decimal value)."""
    out = {}
    y = a.yellow_trajectory
    if y is not None:
        out["yellow_length"] = y.length
    r = a.representatives
    if r is not None:
        out["green_length"], out["blue_length"] = r.green.length, r.blue.length
    return out


def _display(name: str, value: Any, a: Analysis) -> str:
    """The table's text for one figure value (exact values kept exact)."""
    if value is None:
        return "—"
    length = _lengths(a).get(name)
    if length is not None:
        return f"{length.to_float():.3f} = {pretty_radical(str(length))}"
    if name in ("optimal_count", "continuable_count", "continuable_count_editor") \
            or name.endswith("_ties"):
        return _count(str(value))
    if name == "coverage" and a.coverage is not None:
        return (f"{len(a.coverage.cells)}/{a.coverage.drivable} cells = "
                f"{float(a.coverage.fraction) * 100:.2f} %")
    if name == "score" and a.score is not None:
        return f"{value} ({a.score.band})"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def figure_rows(a: Analysis) -> list[dict[str, Any]]:
    """One row per certified figure: name, label, meaning, exact value, display text."""
    rows = []
    for spec in FIGURES:
        absent = spec.absent(a)
        value = None if absent else spec.value(a)
        rows.append({"name": spec.name, "label": LABELS.get(spec.name, spec.name),
                     "meaning": spec.meaning, "value": value, "absent": absent,
                     "display": absent and "—" or _display(spec.name, value, a)})
    return rows


def _moves(t: Trajectory, layers: tuple[int, ...]) -> list[dict[str, Any]]:
    out = []
    for i, (vx, vy) in enumerate(t.velocities):
        speed = RadicalSum.of_vector(vx, vy)
        out.append({"from": list(t.positions[i]), "to": list(t.positions[i + 1]),
                    "v": [vx, vy], "a": list(t.accelerations[i]),
                    "speed": pretty_radical(str(speed)), "speed_float": speed.to_float(),
                    "layers": [layers[i], layers[i + 1]]})
    return out


def trajectory_json(name: str, a: Analysis, t: Trajectory, ties: int | None
                    ) -> dict[str, Any]:
    """A trajectory for the page: positions, layers, per-move details, exact length."""
    layers = position_layers(a.track, t)
    return {"name": name, "title": TITLES[name], "moves": t.moves,
            "length": t.length_float, "length_exact": pretty_radical(str(t.length)),
            "ties": None if ties is None else f"{ties:,}",
            "positions": [list(p) for p in t.positions], "layers": list(layers),
            "steps": _moves(t, layers)}


def analysis_payload(a: Analysis) -> dict[str, Any]:
    """Everything the page shows after Analyse."""
    trajectories = []
    y = a.yellow_trajectory
    if y is not None:
        trajectories.append(trajectory_json("yellow", a, y, None))
    r = a.representatives
    if r is not None:
        trajectories.append(trajectory_json("green", a, r.green.trajectory, r.green.ties))
        trajectories.append(trajectory_json("blue", a, r.blue.trajectory, r.blue.ties))
    cov = a.coverage
    return {
        "track": a.track.name, "mode": a.mode, "reachable": a.bfs.reachable,
        "m_star": a.bfs.m_star, "kind": a.kind, "seconds": round(a.seconds, 3),
        "figures": figure_rows(a),
        "trajectories": trajectories,
        "coverage": None if cov is None else {
            "cells": sorted([x, y] for x, y in cov.cells), "red": str(cov.fraction),
            "percent": float(cov.fraction) * 100},
        "report": a.to_json(),
    }


def headline(c: Certificate) -> str:
    """The certificate's one-line verdict (`Certificate.headline`: what is not confirmed,
    what rests on the second implementation alone), without the text report's pointer."""
    return c.headline.removesuffix(": see the table")


def certificate_payload(c: Certificate) -> dict[str, Any]:
    """Everything the page shows after Certify (the analysis it certified included)."""
    return {
        "status": c.status, "headline": headline(c), "unconfirmed": list(c.unconfirmed),
        "seconds": round(c.seconds, 3),
        "figures": {f.name: {"verdict": f.verdict, "reason": f.reason,
                             "checks": [{"method": r.method, "verdict": r.verdict,
                                         "reason": r.reason, "work": r.work,
                                         "figure": r.figure} for r in f.checks]}
                    for f in c.figures},
        "analysis": analysis_payload(c.analysis),
        "certificate": c.to_json(),
    }
