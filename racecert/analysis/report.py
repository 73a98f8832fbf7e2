"""The text report of a grid analysis: every figure as (label, value) rows.

`racecert analyze` prints them as an aligned table (`racecert.cli.common.format_table`);
the grid profile hands them out (`racecert.analysis.profiles`), so the command line
only formats rows and never reads a profile's figures itself.
"""

from __future__ import annotations

from racecert.analysis.base import Rows, effort_rows
from racecert.analysis.pipeline import Analysis
from racecert.analysis.score import WEIGHTS


def report_rows(a: Analysis) -> Rows:
    """Every figure of the grid analysis `a` as (label, value) rows (read from the typed
    result): the table of `racecert analyze`."""
    t = a.track
    declared = "" if t.kind in (None, a.kind) else f"  (declared {t.kind}!)"
    rows = [
        ("track", f"{t.name}  ({t.width}x{t.height}, sha256 {t.sha256[:12]})"),
        ("mode", a.mode),
        ("kind (computed)", f"{a.kind}{declared}"),
        ("reachable", "yes" if a.bfs.reachable else "no"),
    ]
    if a.bfs.reachable:
        rows += _search_rows(a) + _opening_rows(a) + _continuity_rows(a)
        rows += _trajectory_rows(a) + _coverage_rows(a) + _score_rows(a)
    return rows + effort_rows(a)


def _search_rows(a: Analysis) -> Rows:
    b, n = a.bound, a.bfs.optimal_count
    return [
        ("m* (minimum moves)", str(a.bfs.m_star)),
        ("bound", f"yellow {b.yellow_moves} moves, pruner {b.pruner}, "
                  + ("protection rerun (bounded search found nothing)"
                     if b.protection_rerun else "bounded search sufficed")),
        ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
        ("distinct final states", str(a.bfs.final_states)),
    ]


def _opening_rows(a: Analysis) -> Rows:
    """A row when the opening rule is still active at the optimal arrivals (m* < K)."""
    after = a.opening_moves_after_arrival
    if not after:
        return []
    m = a.bfs.m_star
    assert m is not None
    moves = f"move {m + 1}" if after == 1 else f"moves {m + 1}..{m + after}"
    return [("opening at arrival", f"still active (K = {m + after} > m* = {m}): {moves}, the "
                                   "first after the arrival, still obey it")]


def _continuity_rows(a: Analysis) -> Rows:
    c = a.continuity
    if c is None or not c.applicable:
        return [("continuable", "not applicable (a stage: no second lap)")]
    return [
        ("continuable (race rule)", f"{c.continuable_count:,}  "
                                    f"({float(100 * c.percent):.2f} %)"),
        ("continuable (editor)", f"{c.continuable_count_editor:,}"),
        ("m_cont", _m_cont_cell(a)),
    ]


def _m_cont_cell(a: Analysis) -> str:
    """m_cont, or why there is none where that is not plain."""
    c = a.continuity
    assert c is not None
    if c.m_cont is not None:
        return str(c.m_cont)
    if c.m_cont_null_reason == "editor-key-finds-none":
        return (f"none found by the editor key (exact key: {c.m_cont_exact}): each "
                "continuable first lap passes a state it reached earlier under the opening rule")
    return "-"


def _trajectory_rows(a: Analysis) -> Rows:
    rows: Rows = []
    y = a.yellow
    if y.reachable and y.length is not None:
        rows.append(("yellow", f"{y.moves} moves, length {y.length.to_float():.6f} = {y.length}"))
    r = a.representatives
    if r is not None:
        for name, ext in (("green", r.green), ("blue", r.blue)):
            rows.append((name, f"{ext.trajectory.moves} moves, length {ext.length.to_float():.6f}"
                               f" = {ext.length}, {ext.ties:,} tied"))
    return rows


def _coverage_rows(a: Analysis) -> Rows:
    c = a.coverage
    if c is None:
        return []
    return [("red coverage", f"{len(c.cells)}/{c.drivable} cells = "
                             f"{float(100 * c.fraction):.2f} %")]


def _score_rows(a: Analysis) -> Rows:
    s = a.score
    if s is None:
        return []
    rows = [("score", f"{s.total:.2f}  ({s.band})"
             + (f", capped from {s.raw:.2f}" if s.capped else "")
             + f", corrector {float(s.corrector):.4f}")]
    for name, weight in WEIGHTS.items():
        if name == "continuity" and not s.circuit:
            rows.append((f"  {name}", "n/a (stage)"))
            continue
        extra = ""
        if name == "diversity":
            extra = (f"  (euclid_sep {s.euclid.value:.4f}, "
                     f"spatial_sep {float(s.spatial_sep):.4f})")
        rows.append((f"  {name}", f"{float(s.components[name]):.4f} x weight {weight}{extra}"))
    return rows
