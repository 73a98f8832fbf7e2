"""A checkable count certificate: re-check a `LayeredDag`'s counts and moves.

`racecert.independent.search` counts optimal trajectories in 24-bit limbs. This
module re-checks what it claims with separate code and Python-int arithmetic:

1. **shape**: layer 0 is the initial state (by default the configured car at
   rest) with count 1; there are m* layers and m* − 1 edge sets; every state of
   layer t has phase min(phase₀ + t, K); states of a layer are distinct; indices
   are in range.
2. **moves** (re-derived by `FastGeometry` from every DAG state):
   - every recorded edge t → t+1 is a valid, non-arriving move whose result is
     exactly the destination state (position, velocity, layer, progress, phase);
   - every valid non-arriving move from a layer-t state to a state of layer t+1
     is recorded (a dropped move fails here, even with counts made consistent);
   - no DAG state of layers 0..m*−2 has an (accepted) arriving move (m* would be
     smaller); a rejected arrival ends there, it is never an edge;
   - the (accepted) arriving moves of layer m*−1 are exactly the recorded ones, and
     each points to the final state equal to its kinematic (x, y, vx, vy, layer);
   - every DAG state but the last layer's has a recorded move out, and every
     state of layers 1..m*−1 a recorded move in (each lies on an optimal path).
3. **counts** (Python ints, `np.add.at` on object arrays): every count of layer
   t+1 is the sum of its predecessors' counts, each arrival's count is its
   source's, each final count the sum of its arrivals', and the total the sum
   of the final counts.

What it does not re-check: that the DAG's *states* are all the states on
optimal trajectories (a whole missing state with all its moves), and that m*
is minimal — those are the search's claims, compared with the oracle's.

>>> # check_count_certificate(track, explore(track).dag).ok
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.independent.fastgeom import FastGeometry, Moves
from racecert.independent.search import AcceptFn, LayeredDag, StateLayer, initial_state
from racecert.model.track import Track


@dataclass(frozen=True)
class CountCheck:
    """The verdict: `ok`, the first failure (or "ok"), and the work done."""

    ok: bool
    reason: str
    states: int
    moves_derived: int


class _Failed(Exception):
    """A failed check, with its reason."""


class _RowKeys:
    """A local int64 key for (x, y, vx, vy, layer, progress, phase) rows (x most significant)."""

    def __init__(self, track: Track, phases: int) -> None:
        self.w, self.h, self.phases = track.width, track.height, phases

    def __call__(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                 layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> np.ndarray:
        k = x * self.h + y
        k = k * (2 * self.w + 1) + (vx + self.w)
        k = k * (2 * self.h + 1) + (vy + self.h)
        return ((k * 2 + layer) * 2 + progress) * self.phases + phase


def check_count_certificate(track: Track, dag: LayeredDag, *,
                            initial: tuple[int, ...] | None = None,
                            accept: AcceptFn | None = None) -> CountCheck:
    """Re-check the DAG's moves (independent geometry) and its exact counts.

    `initial` and `accept` must be those the DAG was searched with (see `explore`):
    the start state, and the filter that says which arriving moves count.
    """
    geom = FastGeometry(track)
    derived = 0
    start = initial if initial is not None else initial_state(track)
    if dag.mode == "editor":
        start = (*start[:6], 0)
    try:
        _check_shape(dag, geom.k, tuple(start))
        rowkey = _RowKeys(track, geom.k + 1)
        for t in range(dag.m_star):
            derived += 9 * len(dag.layers[t])
            _check_moves(geom, rowkey, dag, t, accept)
        _check_counts(dag)
    except _Failed as exc:
        return CountCheck(False, str(exc), dag.size, derived)
    return CountCheck(True, "ok", dag.size, derived)


def _fields(layer: StateLayer) -> tuple[np.ndarray, ...]:
    return (layer.x, layer.y, layer.vx, layer.vy, layer.layer, layer.progress, layer.phase)


def _check_shape(dag: LayeredDag, kmax: int, start: tuple[int, ...]) -> None:
    m = dag.m_star
    if m < 1 or len(dag.layers) != m or len(dag.edges) != m - 1 or len(dag.counts) != m:
        raise _Failed(f"m* = {m} but {len(dag.layers)} layers, {len(dag.edges)} edge sets, "
                      f"{len(dag.counts)} count arrays")
    if len(dag.layers[0]) != 1 or dag.layers[0].row(0) != start:
        raise _Failed(f"layer 0 is not the initial state {start}")
    if list(dag.counts[0]) != [1]:
        raise _Failed("the initial state's count is not 1")
    for t, layer in enumerate(dag.layers):
        if len(dag.counts[t]) != len(layer) or len(layer) == 0:
            raise _Failed(f"layer {t}: {len(layer)} states, {len(dag.counts[t])} counts")
        if np.any(layer.phase != min(start[6] + t, kmax)):
            raise _Failed(f"layer {t}: a phase differs from min(initial phase + {t}, K)")
    for t, (src, dst) in enumerate(dag.edges):
        if len(src) != len(dst) or np.any(src < 0) or np.any(dst < 0) or (
                len(src) and (src.max() >= len(dag.layers[t])
                              or dst.max() >= len(dag.layers[t + 1]))):
            raise _Failed(f"edges {t} -> {t + 1}: an index is out of range")
    n_arr = len(dag.arrive_src)
    parts = (dag.arrive_final, dag.arrive_x, dag.arrive_y, dag.arrive_vx, dag.arrive_vy,
             dag.arrive_layer, dag.arrive_progress, dag.arrival_counts)
    if n_arr == 0 or any(len(a) != n_arr for a in parts):
        raise _Failed("the arrival arrays are empty or not aligned")
    if len(dag.final_counts) != len(dag.finals):
        raise _Failed("final counts and final states are not aligned")


def _check_moves(geom: FastGeometry, rowkey: _RowKeys, dag: LayeredDag, t: int,
                 accept: AcceptFn | None) -> None:
    """Re-derive every move of layer t and compare with the recorded edges / arrivals."""
    here = dag.layers[t]
    if _repeats(rowkey(*_fields(here))):
        raise _Failed(f"layer {t}: a state occurs twice")
    m = geom.valid_moves(*_fields(here))
    arriving = np.flatnonzero(m.arrives)
    if len(arriving) and accept is not None:
        arrived_phase = np.minimum(here.phase[m.src[arriving]] + 1, geom.k)
        arriving = arriving[accept(m.x[arriving], m.y[arriving], m.vx[arriving],
                                   m.vy[arriving], m.layer[arriving], m.progress[arriving],
                                   arrived_phase)]
    last = t == dag.m_star - 1
    if not last:
        if len(arriving):
            i = int(m.src[arriving[0]])
            raise _Failed(f"layer {t} state {here.row(i)} arrives in {t + 1} < m* moves")
        _compare_edges(geom, rowkey, dag, t, m.take(np.flatnonzero(~m.arrives)))
    else:
        _compare_arrivals(dag, m.take(arriving), geom.width, geom.height)


def _compare_edges(geom: FastGeometry, rowkey: _RowKeys, dag: LayeredDag, t: int,
                   valid: Moves) -> None:
    nxt = dag.layers[t + 1]
    keys_next = rowkey(*_fields(nxt))
    order = np.argsort(keys_next)
    sorted_next = keys_next[order]
    phase = np.full(len(valid.x), min(int(dag.layers[t].phase[0]) + 1, geom.k), dtype=np.int64)
    got = rowkey(valid.x, valid.y, valid.vx, valid.vy, valid.layer, valid.progress, phase)
    pos = np.minimum(np.searchsorted(sorted_next, got), len(sorted_next) - 1)
    found = sorted_next[pos] == got
    derived_dst = order[pos[found]]
    derived_src = valid.src[found]
    n_next = len(nxt)
    derived = np.sort(derived_src * n_next + derived_dst)
    src, dst = dag.edges[t]
    recorded = np.sort(src * n_next + dst)
    if np.any(recorded[1:] == recorded[:-1]):
        raise _Failed(f"edges {t} -> {t + 1}: a move is recorded twice")
    if not np.array_equal(derived, recorded):
        missing = np.setdiff1d(derived, recorded)
        extra = np.setdiff1d(recorded, derived)
        if len(missing):
            s, d = divmod(int(missing[0]), n_next)
            raise _Failed(f"edges {t} -> {t + 1}: the valid move {dag.layers[t].row(s)} -> "
                          f"{nxt.row(d)} between DAG states is not recorded")
        s, d = divmod(int(extra[0]), n_next)
        raise _Failed(f"edges {t} -> {t + 1}: the recorded move {dag.layers[t].row(s)} -> "
                      f"{nxt.row(d)} is not a valid move to that state")
    if not _covers(src, len(dag.layers[t])):
        raise _Failed(f"layer {t}: a state has no recorded move out")
    if not _covers(dst, n_next):
        raise _Failed(f"layer {t + 1}: a state has no recorded move in")


def _compare_arrivals(dag: LayeredDag, a: Moves, w: int, h: int) -> None:
    derived = [a.src, a.x, a.y, a.vx, a.vy, a.layer, a.progress]
    recorded = [dag.arrive_src, dag.arrive_x, dag.arrive_y, dag.arrive_vx, dag.arrive_vy,
                dag.arrive_layer, dag.arrive_progress]
    limits = [len(dag.layers[-1]), w, h, (-(w - 1), w - 1), (-(h - 1), h - 1), 2, 2]
    d_keys, r_keys = _pack(derived, limits), _pack(recorded, limits)
    if d_keys is None or r_keys is None:  # a recorded value beyond any move's: row tuples
        _compare_arrival_rows(derived, recorded)
    else:
        d_keys.sort()
        r_keys.sort()
        if np.any(r_keys[1:] == r_keys[:-1]):
            raise _Failed("an arriving move is recorded twice")
        if not np.array_equal(d_keys, r_keys):
            _compare_arrival_rows(derived, recorded)
    if not _covers(dag.arrive_src, len(dag.layers[-1])):
        raise _Failed(f"layer {dag.m_star - 1}: a state has no recorded arrival")
    f = dag.finals
    idx = dag.arrive_final
    if np.any(idx < 0) or np.any(idx >= len(f)):
        raise _Failed("an arrival's final index is out of range")
    kin = (f.x, f.y, f.vx, f.vy, f.layer)
    if not all(np.array_equal(k[idx], r) for k, r in zip(kin, recorded[1:6], strict=True)):
        raise _Failed("an arrival points to a final state other than its own")
    f_keys = _pack(list(kin), limits[1:6])
    distinct = (len({f.row(i) for i in range(len(f))}) == len(f) if f_keys is None
                else not _repeats(f_keys))
    if not distinct or not _covers(idx, len(f)):
        raise _Failed("the final states are not distinct, or one has no arrival")


def _pack(cols: list[np.ndarray], limits: list) -> np.ndarray | None:
    """Rows as one int64 each (mixed radix over the columns' ranges, `limits[j]` an
    exclusive upper bound or an inclusive (lo, hi)), or None when a value lies outside
    its range or the radix would not fit 62 bits."""
    key = np.zeros(len(cols[0]), dtype=np.int64)
    room = 1
    for col, lim in zip(cols, limits, strict=True):
        lo, hi = (0, lim - 1) if isinstance(lim, int) else lim
        radix = hi - lo + 1
        room *= radix
        if room >= 2**62 or (len(col) and (int(col.min()) < lo or int(col.max()) > hi)):
            return None
        key = key * radix + (col - lo)
    return key


def _compare_arrival_rows(derived: list[np.ndarray], recorded: list[np.ndarray]) -> None:
    """The arrivals compared as row tuples (the reason names the first differing row)."""
    d_set = set(zip(*(c.tolist() for c in derived), strict=True))
    r_list = list(zip(*(c.tolist() for c in recorded), strict=True))
    if len(set(r_list)) != len(r_list):
        raise _Failed("an arriving move is recorded twice")
    if d_set != set(r_list):
        diff = sorted(d_set ^ set(r_list))[0]
        side = "not recorded" if diff in d_set else "not a valid arriving move"
        raise _Failed(f"arriving move from last-layer state {diff[0]} to {diff[1:]}: {side}")


def _repeats(keys: np.ndarray) -> bool:
    """Whether an int64 key occurs twice (one sort)."""
    keys = np.sort(keys)
    return bool(np.any(keys[1:] == keys[:-1]))


def _covers(index: np.ndarray, n: int) -> bool:
    """Whether the indices (all in [0, n)) hit every one of 0 .. n-1."""
    hit = np.zeros(n, dtype=bool)
    hit[index] = True
    return bool(hit.all())


def _check_counts(dag: LayeredDag) -> None:
    """Every count is the sum of its predecessors' (Python ints); finals and total agree."""
    for t, (src, dst) in enumerate(dag.edges):
        expect = np.zeros(len(dag.layers[t + 1]), dtype=object)
        np.add.at(expect, dst, dag.counts[t][src])
        got = dag.counts[t + 1]
        bad = np.flatnonzero(expect != got)
        if len(bad):
            i = int(bad[0])
            raise _Failed(f"layer {t + 1} state {dag.layers[t + 1].row(i)}: count {got[i]}, "
                          f"but its predecessors sum to {expect[i]}")
    last = dag.counts[-1][dag.arrive_src]
    if np.any(last != dag.arrival_counts):
        raise _Failed("an arrival's count differs from its source state's count")
    finals = np.zeros(len(dag.finals), dtype=object)
    np.add.at(finals, dag.arrive_final, last)
    for i, (want, got) in enumerate(zip(finals.tolist(), dag.final_counts, strict=True)):
        if want != got:
            raise _Failed(f"final state {dag.finals.row(i)}: count {got}, its arrivals sum "
                          f"to {want}")
    if sum(dag.final_counts) != dag.total:
        raise _Failed(f"total {dag.total} is not the sum of the final counts "
                      f"{sum(dag.final_counts)}")
