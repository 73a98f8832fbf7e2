"""The reports of a start-list analysis (lattice and cell-path tracks): the text report's
(label, value) rows and the notebook table's (label, value, note) rows.

The figures are those the profile has (m*, exact counts, the optimal starts, green and
blue); every grid figure it has not is a row saying why (`SKIPPED`, as in its JSON).
"""

from __future__ import annotations

from racecert.analysis.base import HtmlRows, Rows, effort_rows
from racecert.analysis.html_view import NONE, about_text, count_text
from racecert.analysis.lattice.pipeline import SKIPPED, LatticeAnalysis
from racecert.model.profiles import acceleration_set_name, profile_of


def report_rows(a: LatticeAnalysis) -> Rows:
    """Every figure of a lattice or cell-path analysis as (label, value) rows: the table
    of `racecert analyze`."""
    t, b = a.track, a.bfs
    lo, hi = t.bounds_in_file()
    starts = ", ".join(str(t.to_file(p)) for p in a.considered)
    rows = [
        ("track", f"{t.name}  ({profile_of(t).name}, x {lo[0]}..{hi[0]}, y {lo[1]}..{hi[1]}, "
                  f"sha256 {t.sha256[:12]})"),
        ("accelerations", acceleration_set_name(t)),
        ("starts searched", f"{starts}" + ("  (best start)" if a.best_start else "")),
        ("reachable", "yes" if b.reachable else "no"),
    ]
    if b.reachable:
        n = b.optimal_count
        rows += [
            ("m* (minimum moves)", str(b.m_star)),
            ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
            ("distinct final states", str(b.final_states)),
        ]
        for s in a.starts:
            rows.append((f"  from {t.to_file(s.position)}",
                         f"{s.optimal_count:,} optimal trajectories, {s.final_states} final "
                         "states"))
        for name, ext in (("green", a.green), ("blue", a.blue)):
            if ext is not None:
                rows.append((name, f"{ext.trajectory.moves} moves, length "
                                   f"{ext.length.to_float():.6f} = {ext.length}, "
                                   f"{ext.ties:,} tied"))
    rows += [(f"{name} (skipped)", why) for name, why in SKIPPED.items()]
    return rows + effort_rows(a)


def html_rows(a: LatticeAnalysis) -> HtmlRows:
    """A lattice analysis's headline figures as (label, value, note) rows: m*, the exact
    count, the optimal starts, green and blue (the figures a lattice track has; the others
    say why they do not exist in its JSON's ``skipped``)."""
    t, b = a.track, a.bfs
    rows = [("track", t.name, profile_of(t).title),
            ("accelerations", acceleration_set_name(t), "the set each move picks from"),
            ("starts", str(len(a.considered)), "best start searched" if a.best_start
             else "the declared start")]
    if not b.reachable:
        return [*rows, ("m*", NONE, "the finish is unreachable")]
    rows += [("m*", str(b.m_star), "minimum number of moves"),
             ("optimal trajectories", str(b.optimal_count), "exact count with m* moves"),
             ("optimal starts", str(len(a.starts)), "starts that reach the finish in m*")]
    for name, ext, what in (("green", a.green, "shortest"), ("blue", a.blue, "longest")):
        if ext is not None:
            rows.append((f"{name} length", str(ext.length), f"{about_text(ext.length)}{what} "
                         f"optimal trajectory; {count_text(ext.ties)} of that length"))
    return rows
