"""Allowed-move tables for the time-indexed solver models, built by the independent geometry.

A row is one geometrically valid move between two positions:

    (x, y, x2, y2, layer, layer2, start, finish, start_before_finish)

from cell centre (x, y) in `layer` to (x2, y2), ending in `layer2`; `start` /
`finish` are 1 when the move crosses that line legally on the line's layer, and
`start_before_finish` is 1 when it crosses both and the start first (exact t).
Moves that cross a line against its direction, touch an off-track cell, end on
a shoulder or have zero length are not in the table. The velocity is implied by
consecutive positions (v' = p2 - p), so the kinematics (|a| <= 1, the opening
rule) are linear constraints of the model, not table columns: tables over
(x_t, y_t, x_{t+1}, y_{t+1}) measured as the fastest shape for CP-SAT.

Scope (written into every certificate): *every* endable cell in every layer as
a start, and every displacement with |v'|inf <= vmax that stays on the grid.
It does not depend on the BFS: it is a superset of the moves any trajectory of
at most vmax moves from rest can make (speed grows by at most 1 per move).
`reachable_move_table` builds the smaller table the certificate's models use: only the
moves of states a car can reach from given states (an untimed closure, any speed).

The enumeration is vectorised over positions, one displacement and start layer
at a time, with the touched cells and entry parameters of
`racecert.independent.fastgeom.touched_cells` (integer corner signs; the same cells
and entry times as the clipping geometry, tested) and exact `Fraction` crossing times.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.fastgeom import touched_cells
from racecert.independent.geometry import HALF, Geometry
from racecert.independent.race_rules import ACCELS, COLUMNS, initial_state
from racecert.independent.unique import distinct_sorted
from racecert.model.track import Line, Track

_OFF, _RAMP = 0, 3


@dataclass(frozen=True)
class MoveTable:
    """Allowed moves (rows as in the module docstring) and what they cover."""

    rows: tuple[tuple[int, ...], ...]
    vmax: int
    endable: tuple[tuple[int, int, int], ...]  # (x, y, layer) where a move may end
    scope: str
    seconds: float

    def __len__(self) -> int:
        return len(self.rows)


def _surface_array(g: Geometry, track: Track) -> np.ndarray:
    """surf[layer, y, x]: 0 off, 1 asphalt, 2 shoulder, 3 ramp (verify's own reading)."""
    surf = np.zeros((2, track.height, track.width), dtype=np.int8)
    for (layer, x, y), kind in g._surface.items():
        surf[layer, y, x] = kind
    return surf


def _line_hits(line: Line, xs: np.ndarray, ys: np.ndarray, vx: int, vy: int,
               entries: list[Fraction]) -> tuple[np.ndarray, np.ndarray, list[Fraction | None]]:
    """Per position: whether the move meets the closed line, the touched-cell index at the
    crossing, and (per value of the fixed coordinate) the exact crossing t."""
    fixed, span, vf, vs = (xs, ys, vx, vy) if line.axis == "x" else (ys, xs, vy, vx)
    hit = np.zeros(len(xs), dtype=bool)
    cell = np.zeros(len(xs), dtype=np.int64)
    if vf == 0 or len(xs) == 0:
        return hit, cell, []
    ts: list[Fraction | None] = []
    # t = (k + 1/2 - f) / vf lies in [0, 1] iff 2 (k - f) + 1 lies between 0 and 2 vf: an
    # integer test first, so the exact t is computed only for the few values that cross
    fs = distinct_sorted(fixed)
    num = 2 * (line.k - fs) + 1
    fs = fs[(num >= 0) & (num <= 2 * vf) if vf > 0 else (num <= 0) & (num >= 2 * vf)]
    for f in fs.tolist():
        t = (line.k + HALF - f) / vf
        if not 0 <= t <= 1:
            continue
        lo = math.ceil(line.lo - HALF - vs * t)   # span coordinate s with s + vs t in span
        hi = math.floor(line.hi + HALF - vs * t)
        m = (fixed == f) & (span >= lo) & (span <= hi)
        hit |= m
        cell[m] = bisect.bisect_right(entries, t) - 1  # the cell whose open interval holds t+
        ts.append(t)
    return hit, cell, ts


@lru_cache(maxsize=4)
def move_table(track: Track, vmax: int) -> MoveTable:
    """`build_move_table`, cached per (track, vmax): the checks of one run share tables."""
    return build_move_table(track, vmax)


MAX_TABLE_CANDIDATES = 6_000_000
"""Above this many candidate moves a check reports that the table is too large to build."""


def table_candidates(track: Track, vmax: int) -> int:
    """An upper bound on the moves `build_move_table` considers (for size guards)."""
    cells = sum(row.count(".") + row.count("/") for row in track.ground)
    if track.elevated is not None:
        cells += sum(row.count("=") + row.count("/") for row in track.elevated)
    vx, vy = min(vmax, track.width - 1), min(vmax, track.height - 1)
    return cells * (2 * vx + 1) * (2 * vy + 1)


def build_move_table(track: Track, vmax: int) -> MoveTable:
    """Every valid move with |v'|inf <= vmax from every endable cell, as table rows.

    >>> # t = build_move_table(load_track("tracks/tiny_straight.toml"), 3); len(t)
    """
    t0 = time.perf_counter()
    g = Geometry(track)
    surf = _surface_array(g, track)
    w, h = track.width, track.height
    layers = 1 if track.elevated is None else 2
    endable = (surf == 1) | (surf == 3)
    out: list[np.ndarray] = []
    yy, xx = np.nonzero(np.ones((h, w), dtype=bool))
    for l0 in range(layers):
        here = endable[l0, yy, xx]
        px0, py0 = xx[here], yy[here]
        for vx in range(-min(vmax, w - 1), min(vmax, w - 1) + 1):
            for vy in range(-min(vmax, h - 1), min(vmax, h - 1) + 1):
                if vx == 0 and vy == 0:
                    continue
                inside = (px0 + vx >= 0) & (px0 + vx < w) & (py0 + vy >= 0) & (py0 + vy < h)
                px, py = px0[inside], py0[inside]
                if len(px) == 0:
                    continue
                rows = _moves_for(track, surf, endable, px, py, vx, vy, l0)
                if rows is not None:
                    out.append(rows)
    allrows = np.concatenate(out) if out else np.zeros((0, len(COLUMNS)), dtype=np.int64)
    ends = np.argwhere(endable)  # (layer, y, x)
    scope = (f"all moves with |v'|inf <= {vmax} from every endable cell of every layer "
             "(independent geometry; independent of the BFS)")
    return MoveTable(tuple(map(tuple, allrows.tolist())), vmax,
                     tuple((int(x), int(y), int(lay)) for lay, y, x in ends), scope,
                     time.perf_counter() - t0)


def _moves_for(track: Track, surf: np.ndarray, endable: np.ndarray, px: np.ndarray,
               py: np.ndarray, vx: int, vy: int, l0: int) -> np.ndarray | None:
    """Rows for displacement (vx, vy) from positions (px, py) starting in layer l0."""
    cells = touched_cells(vx, vy)
    if not surf[1].any():  # one layer: no switch, every touched cell judged at once
        dxs = np.array([c[0] for c in cells], dtype=np.int64)[:, None]
        dys = np.array([c[1] for c in cells], dtype=np.int64)[:, None]
        ok = (surf[0, py + dys, px + dxs] != _OFF).all(axis=0)
        if not ok.any():
            return None
        layer_at = np.zeros((len(cells), len(px)), dtype=np.int64)
        cur = layer_at[0]
    else:
        layer_at, cur, ok = _layers_along(surf, px, py, cells, l0)
        if layer_at is None:
            return None
    return _rows(track, endable, px, py, vx, vy, l0, cells, layer_at, cur, ok)


def _layers_along(surf: np.ndarray, px: np.ndarray, py: np.ndarray, cells: list,
                  l0: int) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Two layers: the layer of every touched cell, cell by cell (a ramp lets the next
    cell switch), and which moves stay on drivable cells; (None, ...) when none does."""
    n = len(px)
    cur = np.full(n, l0, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    prev_ramp = np.zeros(n, dtype=bool)
    layer_at = np.empty((len(cells), n), dtype=np.int64)
    for i, (dx, dy, _) in enumerate(cells):
        cx, cy = px + dx, py + dy
        drive_here = surf[cur, cy, cx] != _OFF
        switch = ~drive_here & prev_ramp & (surf[1 - cur, cy, cx] != _OFF)
        ok &= drive_here | switch
        cur = np.where(switch, 1 - cur, cur)
        layer_at[i] = cur
        prev_ramp = surf[0, cy, cx] == _RAMP
        if not ok.any():
            return None, cur, ok
    return layer_at, cur, ok


def _rows(track: Track, endable: np.ndarray, px: np.ndarray, py: np.ndarray, vx: int,
          vy: int, l0: int, cells: list, layer_at: np.ndarray, cur: np.ndarray,
          ok: np.ndarray) -> np.ndarray | None:
    """The table rows of the moves that stay on drivable cells (`ok`): end cell endable,
    line crossings with their layers and directions, start-before-finish."""
    n = len(px)
    ok = ok & endable[cur, py + vy, px + vx]
    entries = [c[2] for c in cells]
    flags = {}
    t_of: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, line in (("start", track.start), ("finish", track.finish)):
        hit, cell, _ = _line_hits(line, px, py, vx, vy, entries)
        at = layer_at[cell, np.arange(n)]
        hit &= at == line.layer
        along = vx if line.axis == "x" else vy
        legal = (along > 0) == (line.direction[0] == "+")
        if not legal:
            ok &= ~hit
            hit = np.zeros(n, dtype=bool)
        flags[name] = hit
        # the crossing t as a fraction num/den of the fixed coordinate (den = 2 v, same sign)
        f = px if line.axis == "x" else py
        vf = vx if line.axis == "x" else vy
        num = (2 * line.k + 1 - 2 * f).astype(np.int64) * (1 if vf > 0 else -1)
        t_of[name] = (num, np.full(n, 2 * abs(vf) if vf else 1, dtype=np.int64))
    (sn, sd), (fn, fd) = t_of["start"], t_of["finish"]
    both = flags["start"] & flags["finish"]
    sbf = both & (sn * fd < fn * sd)
    keep = np.nonzero(ok)[0]
    if len(keep) == 0:
        return None
    cols = (px, py, px + vx, py + vy, np.full(n, l0), cur, flags["start"], flags["finish"], sbf)
    return np.stack([np.asarray(c, dtype=np.int64)[keep] for c in cols], axis=1)


class TableBudget(SizeBudgetExceeded):
    """The reachable-move closure would exceed its size budget in states (the message names
    the budget and the states reached when it stopped)."""


DEFAULT_CLOSURE_STATES = 500_000
"""States (x, y, vx, vy, layer) the reachable-move closure may visit. The table (about nine
rows per state, a Python tuple each) and the models' per-step graph over it (a few KB per
state) stay within about 2.5 GB; llanura's closure holds 160,426 states, open 120x120's
holds every speed on every cell and exceeds it."""


def reachable_move_table(track: Track, starts: Sequence[tuple[int, int, int, int, int]],
                         what: str, *, max_states: int = DEFAULT_CLOSURE_STATES
                         ) -> MoveTable:
    """Every valid move a car can make from the `starts` (x, y, vx, vy, layer) and from
    every state those moves reach, as table rows (sorted, so models are deterministic).

    The closure is untimed and ignores the opening rule and the arrival (a car may keep
    driving after the finish), so it is a superset of the moves any trajectory from the
    starts can use, at any horizon; no speed bound is assumed. Moves are generated lazily,
    one displacement and start layer at a time, by the same vectorised enumeration as
    `build_move_table`, so the table holds only moves of states a car can be in.
    `TableBudget` past `max_states` visited states.

    >>> # reachable_move_table(track, [(1, 1, 0, 0, 0)], "the car at rest")
    """
    t0 = time.perf_counter()
    g = Geometry(track)
    surf = _surface_array(g, track)
    w, h = track.width, track.height
    endable = (surf == 1) | (surf == 3)
    span = 2 * (w + h) + 4  # |v| < w, h on the grid: keys are exact

    def key(s: np.ndarray) -> np.ndarray:  # (n, 5) states -> one int64 each
        x, y, vx, vy, lay = (s[:, i].astype(np.int64) for i in range(5))
        return (((lay * h + y) * w + x) * span + vx + span // 2) * span + vy + span // 2

    frontier = np.unique(np.asarray(starts, dtype=np.int64).reshape(-1, 5), axis=0)
    seen = distinct_sorted(key(frontier))  # sorted state keys
    expanded = np.zeros(0, dtype=np.int64)  # sorted keys of the moves already generated
    out: list[np.ndarray] = []
    acc = np.array(ACCELS, dtype=np.int64)
    cells = w * h
    while len(frontier):
        # (layer, dx, dy, x, y) of every move the frontier can attempt, as one int64 key
        # ordered by (layer, dx, dy) first: one group per displacement and start layer
        x = np.repeat(frontier[:, 0], 9)
        y = np.repeat(frontier[:, 1], 9)
        lay = np.repeat(frontier[:, 4], 9)
        dx = np.repeat(frontier[:, 2], 9) + np.tile(acc[:, 0], len(frontier))
        dy = np.repeat(frontier[:, 3], 9) + np.tile(acc[:, 1], len(frontier))
        ok = ((dx != 0) | (dy != 0)) & (x + dx >= 0) & (x + dx < w) & (y + dy >= 0) \
            & (y + dy < h)
        mk = ((((lay * span + dx + span // 2) * span + dy + span // 2) * h + y) * w + x)[ok]
        mk = distinct_sorted(mk)
        mk = mk[~np.isin(mk, expanded, assume_unique=True)]
        if not len(mk):
            break
        expanded = np.insert(expanded, np.searchsorted(expanded, mk), mk)  # both sorted
        group, pos = np.divmod(mk, cells)
        py, px = np.divmod(pos, w)
        starts_at = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        new_rows: list[np.ndarray] = []
        for lo, hi in zip(starts_at.tolist(), [*starts_at[1:].tolist(), len(mk)],
                          strict=True):
            gl, g_dy = divmod(int(group[lo]), span)
            l0, g_dx = divmod(gl, span)
            rows = _moves_for(track, surf, endable, px[lo:hi], py[lo:hi], g_dx - span // 2,
                              g_dy - span // 2, l0)
            if rows is not None:
                new_rows.append(rows)
        if not new_rows:
            break
        rows = np.concatenate(new_rows)
        out.append(rows)
        nxt = np.stack([rows[:, 2], rows[:, 3], rows[:, 2] - rows[:, 0],
                        rows[:, 3] - rows[:, 1], rows[:, 5]], axis=1)
        keys, first = np.unique(key(nxt), return_index=True)
        fresh = ~np.isin(keys, seen, assume_unique=True)
        seen = np.insert(seen, np.searchsorted(seen, keys[fresh]), keys[fresh])
        if len(seen) > max_states:
            raise TableBudget("the reachable-move closure", len(seen), max_states,
                              "states", at_least=True)
        frontier = nxt[first[fresh]]
    allrows = (np.unique(np.concatenate(out), axis=0) if out
               else np.zeros((0, len(COLUMNS)), dtype=np.int64))
    vmax = int(np.abs(allrows[:, 2:4] - allrows[:, 0:2]).max()) if len(allrows) else 0
    ends = np.argwhere(endable)
    scope = (f"every move reachable from {what} ({len(seen):,} states (x, y, vx, vy, layer) "
             "in the untimed closure, |a|inf <= 1, opening rule not applied: a superset; "
             "independent geometry; independent of the BFS)")
    return MoveTable(tuple(map(tuple, allrows.tolist())), vmax,
                     tuple((int(x), int(y), int(lay)) for lay, y, x in ends), scope,
                     time.perf_counter() - t0)

def closure_table(track: Track, starts: tuple[tuple[int, int, int, int, int], ...],
                  what: str, reachable_at_least: int = 0) -> MoveTable:
    """`reachable_move_table`, cached per (track, starts): the checks of one run share it,
    and a closure over its budget is not rebuilt by the next check (the same
    `TableBudget` is raised again).

    `reachable_at_least`: a number of distinct states (x, y, vx, vy, layer) already known
    to be reachable from the starts (by valid moves, so the closure holds each of them);
    past the budget the closure is refused at once instead of built until it passes it.
    """
    key = (track, starts, what)
    hit = _CLOSURES.get(key)
    if hit is None:
        try:
            if reachable_at_least > DEFAULT_CLOSURE_STATES:
                raise TableBudget("the reachable-move closure", reachable_at_least,
                                  DEFAULT_CLOSURE_STATES, "states", at_least=True,
                                  note="counted from the states a search already reached")
            hit = reachable_move_table(track, starts, what)
        except TableBudget as e:
            hit = e
        if len(_CLOSURES) >= 4:
            _CLOSURES.pop(next(iter(_CLOSURES)))
        _CLOSURES[key] = hit
    if isinstance(hit, TableBudget):
        raise hit
    return hit


_CLOSURES: dict[tuple, MoveTable | TableBudget] = {}


def clear_closure_cache() -> None:
    """Forget every cached closure (tests that patch the table builder)."""
    _CLOSURES.clear()


def race_table(track: Track, reachable_at_least: int = 0) -> MoveTable:
    """Every move reachable from the car's initial state (the table of the race models);
    `reachable_at_least` as in `closure_table`."""
    return closure_table(track, (initial_state(track)[:5],), "the car's initial state",
                         reachable_at_least)
