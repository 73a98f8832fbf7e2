"""The figures a certificate covers: each one's oracle value, and where it does not exist.

Every figure of `racecert analyze` is listed here once, in report order. A figure
that does not exist on a track (continuity on a stage, ties when the finish is
unreachable, m_cont when an optimal arrival continues) is `not-applicable` with the
reason; every other figure must be confirmed by at least one independent check, or
the certificate is only `partial`.

Values are small JSON scalars: ints, booleans, exact strings (counts as decimal
strings, lengths as sums of square roots, fractions as "p/q").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from racecert.analysis.pipeline import Analysis

Value = int | str | bool | None


@dataclass(frozen=True)
class FigureSpec:
    """One certified figure: its name, what it is, its value and when it does not exist."""

    name: str
    meaning: str
    value: Callable[[Analysis], Value]
    absent: Callable[[Analysis], str | None] = lambda a: None  # reason, or None if it exists


def _unreachable(a: Analysis) -> str | None:
    return None if a.bfs.reachable else "the finish is unreachable"


def _no_continuity(a: Analysis) -> str | None:
    if not a.bfs.reachable:
        return "the finish is unreachable"
    c = a.continuity
    if c is None or not c.applicable:
        return "a stage: continuity into another lap does not apply"
    return None


def _no_m_cont(a: Analysis) -> str | None:
    why = _no_continuity(a)
    if why is not None:
        return why
    assert a.continuity is not None
    if a.continuity.m_cont is None and a.continuity.continuable_count > 0:
        return "an optimal arrival continues: m_cont is only defined when none does"
    return None


def _no_yellow(a: Analysis) -> str | None:
    return None if a.yellow.reachable else "the finish is unreachable"


def _no_representatives(a: Analysis) -> str | None:
    return None if a.representatives is not None else "the finish is unreachable"


def _no_score(a: Analysis) -> str | None:
    return None if a.score is not None else "the finish is unreachable: no score"


def _extreme(a: Analysis, which: str, part: str) -> Value:
    r = a.representatives
    if r is None:
        return None
    ext = r.green if which == "green" else r.blue
    return str(ext.length) if part == "length" else str(ext.ties)


def _cont(a: Analysis, editor: bool) -> Value:
    c = a.continuity
    if c is None or not c.applicable:
        return None
    return str(c.continuable_count_editor if editor else c.continuable_count)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("move_validity", "every move of every explored state valid or not as the "
               "rules say", lambda a: "the model's rules"),
    FigureSpec("reachable", "some trajectory crosses the start and then the finish",
               lambda a: a.bfs.reachable),
    FigureSpec("m_star", "the minimum number of moves", lambda a: a.bfs.m_star, _unreachable),
    FigureSpec("optimal_count", "the number of trajectories with m* moves",
               lambda a: str(a.bfs.optimal_count), _unreachable),
    FigureSpec("final_states", "distinct final kinematic states of optimal trajectories",
               lambda a: a.bfs.final_states, _unreachable),
    FigureSpec("kind", "stage or circuit (can the car make a second lap)", lambda a: a.kind),
    FigureSpec("continuable_count", "optimal trajectories that continue into another lap "
               "(race rule)", lambda a: _cont(a, False), _no_continuity),
    FigureSpec("continuable_count_editor", "optimal trajectories the editor's rule certifies "
               "as continuable", lambda a: _cont(a, True), _no_continuity),
    FigureSpec("m_cont", "the least moves of a continuable arrival when no optimal one "
               "continues", lambda a: None if a.continuity is None else a.continuity.m_cont,
               _no_m_cont),
    FigureSpec("yellow_moves", "moves of the least-length trajectory",
               lambda a: a.yellow.moves, _no_yellow),
    FigureSpec("yellow_length", "length of the least-length trajectory (exact)",
               lambda a: None if a.yellow.length is None else str(a.yellow.length),
               _no_yellow),
    FigureSpec("green_length", "shortest length of an optimal trajectory (exact)",
               lambda a: _extreme(a, "green", "length"), _no_representatives),
    FigureSpec("green_ties", "optimal trajectories of green's length",
               lambda a: _extreme(a, "green", "ties"), _no_representatives),
    FigureSpec("blue_length", "longest length of an optimal trajectory (exact)",
               lambda a: _extreme(a, "blue", "length"), _no_representatives),
    FigureSpec("blue_ties", "optimal trajectories of blue's length",
               lambda a: _extreme(a, "blue", "ties"), _no_representatives),
    FigureSpec("coverage", "share of drivable cells touched by optimal trajectories",
               lambda a: None if a.coverage is None else str(a.coverage.fraction),
               _unreachable),
    FigureSpec("score", "the design score (docs/score.md)",
               lambda a: None if a.score is None else f"{a.score.total:.2f}", _no_score),
)
FIGURE_NAMES: tuple[str, ...] = tuple(f.name for f in FIGURES)

# What the checks call the figures they address, where that is not the figure's name.
_CHECK_NAMES = {
    "move validity": "move_validity",
    "m*": "m_star",
    "continuable final states (race rule)": "continuable_count",
    "continuable final states (editor certification)": "continuable_count_editor",
}


def bound_side(check_figure: str) -> str | None:
    """Which side of a figure a check's label establishes: ``"lower"`` for an "m* lower
    bound, ..." check (a refutation of m* - 1 moves proves m* >= the value, not that m*
    moves suffice), ``"upper"`` for an "m* upper bound, ..." one (a replayed witness), and
    None for a check of the whole figure."""
    for side in ("lower", "upper"):
        if check_figure.startswith(f"m* {side} bound"):
            return side
    return None


def canonical_figures(check_figure: str) -> tuple[str, ...]:
    """The figures a check's `figure` label addresses (every m* bound addresses m_star;
    "green length and ties" addresses green_length and green_ties)."""
    if check_figure in FIGURE_NAMES:
        return (check_figure,)
    if check_figure in _CHECK_NAMES:
        return (_CHECK_NAMES[check_figure],)
    if check_figure.startswith("m* "):
        return ("m_star",)
    for color in ("green", "blue"):
        if check_figure == f"{color} length and ties":
            return (f"{color}_length", f"{color}_ties")
    return (check_figure,)
