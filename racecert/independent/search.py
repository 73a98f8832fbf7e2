"""An independent layered exploration: m*, the optimal layered DAG and exact counts.

This re-derives the oracle's search figures with code that shares nothing with
it: moves come from `racecert.independent.fastgeom` (its own integer geometry),
states are keyed by this module's own mixed-radix int64 key, and counts are
exact Python ints obtained by this module's own multi-limb arithmetic (24-bit
limbs summed exactly in float64 by `np.bincount`, then carried), not by residues.

Keys (docs/rules.md §5-§6):

- ``exact``: (x, y, vx, vy, layer, progress, phase), phase = min(moves made, K);
  the state graph is then independent of time, so "first reached at t" is exact.
- ``editor``: the phase is dropped from the key and the opening rule is applied
  by the layer index t (the phase of every state of layer t is min(t, K)).

Layer t holds the states first reached after t moves (a state reached earlier is
not kept again). The first layer whose expansion contains an arriving move fixes
m* = t + 1; that whole layer is expanded, its non-arriving successors dropped,
then a backward pass keeps the states and moves lying on some optimal trajectory.

The DAG interface (`LayeredDag`, frozen; all arrays are int64 numpy arrays):

- ``mode``: "exact" or "editor"; ``m_star``: the number of moves of an optimal
  trajectory (>= 1).
- ``layers[t]`` for t = 0..m*-1: a `StateLayer` with aligned arrays ``x``, ``y``,
  ``vx``, ``vy``, ``layer``, ``progress``, ``phase`` (one row per DAG state after t
  moves; ``layers[0]`` is the initial state alone). In editor mode ``phase`` is
  min(t, K). Every state lies on some optimal trajectory.
- ``edges[t] = (src, dst)`` for t = 0..m*-2: the moves from ``layers[t][src[i]]`` to
  ``layers[t + 1][dst[i]]``; the move's velocity is the destination's (vx, vy), i.e.
  ``x[dst] - x[src]``. There is at most one move per (src, dst) pair.
- arriving moves (the last move of an optimal trajectory), aligned arrays:
  ``arrive_src`` (index into ``layers[m* - 1]``), ``arrive_final`` (index into
  ``finals``), and the arrived state ``arrive_x``, ``arrive_y``, ``arrive_vx``,
  ``arrive_vy``, ``arrive_layer``, ``arrive_progress`` (the next lap's progress).
  The arriving move's velocity is (arrive_vx, arrive_vy) = arrival - source position.
- ``finals``: a `FinalStates` with arrays ``x``, ``y``, ``vx``, ``vy``, ``layer``: the
  distinct final kinematic states, sorted by (x, y, vx, vy, layer).
- ``counts[t]``: numpy object array of Python ints aligned with ``layers[t]``: the
  number of t-move paths from the initial state to that state (``counts[0] = [1]``).
  ``arrival_counts`` (object array, aligned with the arriving moves) and
  ``final_counts`` (tuple of int, aligned with ``finals``) and ``total`` follow.

`explore(track, mode, max_states=..., max_depth=None, initial=None, accept=None)
-> SearchResult` runs the search (`initial`: another start state; `accept`: which
arriving moves count, e.g. only continuable ones for m_cont); `SearchResult.status`
is "arrived", "unreachable", "depth" (no arrival within ``max_depth`` moves) or
"budget" (more than ``max_states`` states would have been stored; ``message`` says
where). The budget is in states, so a result does not depend on the machine.

Per layer, the valid moves come from `FastGeometry.valid_moves` in chunks; each
successor is packed with its source row into one int64, the layer's packed values
sorted once (`np.sort`, in place), and `racecert.independent.search_kernel` scans
them against the sorted visited keys (the states first reached now, the moves into
them) and merges the new keys in. Transient memory per layer is about 20 bytes per
successor (at most nine per state of the layer).

>>> # r = explore(load_track("tracks/tiny_straight.toml")); r.m_star, r.optimal_count
>>> # (3, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from racecert.independent.fastgeom import FastGeometry
from racecert.independent.search_kernel import first_reached, merge_sorted
from racecert.model.track import Track

Mode = Literal["exact", "editor"]
ProgressFn = Callable[[int, int], None]
"""progress(depth, stored states): called after each layer (display only)."""
AcceptFn = Callable[..., np.ndarray]
"""accept(x, y, vx, vy, layer, progress, phase) -> bool mask over the arrived states
(`phase`: the arrived state's opening phase, min(moves made, K), what a continuation
from it starts with)."""
Status = Literal["arrived", "unreachable", "depth", "budget"]
DEFAULT_MAX_STATES = 20_000_000
"""The default state budget. Peak memory is about 120 bytes per stored state on open
areas (open 200x200: 4.8 million states, 0.56 GB; open 300x300: 19.5 million, 2.3 GB),
so 20 million stay within ~2.5 GB."""


@dataclass(frozen=True)
class StateLayer:
    """States as aligned int64 arrays (one row per state)."""

    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    layer: np.ndarray
    progress: np.ndarray
    phase: np.ndarray

    def __len__(self) -> int:
        return len(self.x)

    def row(self, i: int) -> tuple[int, int, int, int, int, int, int]:
        """State i as (x, y, vx, vy, layer, progress, phase)."""
        return (int(self.x[i]), int(self.y[i]), int(self.vx[i]), int(self.vy[i]),
                int(self.layer[i]), int(self.progress[i]), int(self.phase[i]))


@dataclass(frozen=True)
class FinalStates:
    """Distinct final kinematic states (x, y, vx, vy, layer), sorted lexicographically."""

    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    layer: np.ndarray

    def __len__(self) -> int:
        return len(self.x)

    def row(self, i: int) -> tuple[int, int, int, int, int]:
        """Final state i as (x, y, vx, vy, layer)."""
        return (int(self.x[i]), int(self.y[i]), int(self.vx[i]), int(self.vy[i]),
                int(self.layer[i]))


@dataclass(frozen=True)
class LayeredDag:
    """The optimal layered DAG with exact path counts (fields: see the module docstring)."""

    mode: Mode
    m_star: int
    layers: tuple[StateLayer, ...]
    edges: tuple[tuple[np.ndarray, np.ndarray], ...]
    arrive_src: np.ndarray
    arrive_final: np.ndarray
    arrive_x: np.ndarray
    arrive_y: np.ndarray
    arrive_vx: np.ndarray
    arrive_vy: np.ndarray
    arrive_layer: np.ndarray
    arrive_progress: np.ndarray
    finals: FinalStates
    counts: tuple[np.ndarray, ...]
    arrival_counts: np.ndarray
    final_counts: tuple[int, ...]
    total: int

    @property
    def size(self) -> int:
        """Number of DAG states (layers 0..m*-1, final states not included)."""
        return sum(len(layer) for layer in self.layers)


@dataclass(frozen=True)
class SearchResult:
    """What the independent search found; counts are exact Python ints.

    `reachable` is None when the search stopped on its budget or depth bound
    without an arrival (nothing is known then). `states_explored` counts the
    stored states of layers 0..depth_explored (for "arrived": layers 0..m*-1).
    """

    mode: Mode
    status: Status
    reachable: bool | None
    m_star: int | None
    optimal_count: int
    final_counts: tuple[int, ...]
    dag: LayeredDag | None
    states_explored: int
    depth_explored: int
    message: str


# -- the key -------------------------------------------------------------------------


class StateKey:
    """This module's int64 key: mixed radix over (vx, vy, layer, progress, phase, y, x).

    Velocities lie in [-(W-1), W-1] x [-(H-1), H-1] (a move must end on the grid).
    The editor key has no phase (radix 1).
    """

    def __init__(self, width: int, height: int, phases: int) -> None:
        self.w, self.h, self.phases = width, height, phases
        self.rvx, self.rvy = 2 * width - 1, 2 * height - 1
        self.bound = bound = self.rvx * self.rvy * 4 * phases * width * height
        if bound >= 2**62:
            raise ValueError(f"a {width}x{height} grid does not fit this search's int64 key")

    def encode(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
               layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> np.ndarray:
        k = (vx + (self.w - 1)) * self.rvy + (vy + (self.h - 1))
        k = ((k * 2 + layer) * 2 + progress) * self.phases + phase
        return (k * self.h + y) * self.w + x

    def decode(self, keys: np.ndarray) -> tuple[np.ndarray, ...]:
        """(x, y, vx, vy, layer, progress, phase) of sorted or unsorted keys."""
        k, x = np.divmod(keys, self.w)
        k, y = np.divmod(k, self.h)
        k, phase = np.divmod(k, self.phases)
        k, progress = np.divmod(k, 2)
        k, layer = np.divmod(k, 2)
        vx, vy = np.divmod(k, self.rvy)
        return x, y, vx - (self.w - 1), vy - (self.h - 1), layer, progress, phase


# -- the search ----------------------------------------------------------------------

CHUNK = 1 << 15
"""States classified per call (keeps the nine-fold candidate arrays cache-friendly)."""
LIMB_BITS = 24
_LIMB_MASK = (1 << LIMB_BITS) - 1


@dataclass
class _Arrivals:
    """The arriving moves of the last layer, as found (not yet reduced to the DAG)."""

    src: list[np.ndarray]
    fields: list[tuple[np.ndarray, ...]]  # (x, y, vx, vy, layer, progress)


def explore(track: Track, mode: Mode = "exact", *, max_states: int = DEFAULT_MAX_STATES,
            max_depth: int | None = None, initial: tuple[int, ...] | None = None,
            accept: AcceptFn | None = None, progress: ProgressFn | None = None
            ) -> SearchResult:
    """Layered exploration from the configured car: m*, the optimal DAG, exact counts.

    `max_states` bounds the stored states (a deterministic budget); `max_depth`
    the number of moves. Neither depends on the machine. `initial` replaces the
    configured car at rest by another state (x, y, vx, vy, layer, progress, phase);
    `accept` filters arriving moves (given the arrived states' arrays x, y, vx, vy,
    layer, progress, phase, it returns a keep-mask): a rejected arrival just ends there,
    and m* becomes the first depth with an accepted one (e.g. a continuable one).
    Without a phase in the key (editor) the initial phase is taken as 0. `progress(depth,
    states)` is told after each layer how many states are stored (display only).
    """
    geom = FastGeometry(track)
    kmax = geom.k
    key = StateKey(track.width, track.height, kmax + 1 if mode == "exact" else 1)
    start = initial if initial is not None else initial_state(track)
    if mode == "editor":
        start = (*start[:6], 0)
    first = tuple(np.array([v], dtype=np.int64) for v in start)
    layers = [key.encode(*first)]
    visited = layers[0].copy()
    forward: list[tuple[np.ndarray, np.ndarray]] = []
    total, t = 1, 0
    while True:
        if max_depth is not None and t >= max_depth:
            return _stopped(mode, "depth", total, t,
                            f"no arrival within {max_depth} moves ({total:,} states)")
        succ, src, arrivals = _expand(geom, key, layers[t], t, mode, accept)
        if arrivals.src:
            dag = _finish(geom, key, layers, forward, arrivals, mode)
            return SearchResult(mode, "arrived", True, dag.m_star, dag.total, dag.final_counts,
                                dag, total, t + 1, f"m* = {dag.m_star}")
        new, edges = _new_states(succ, src, visited, len(layers[t]), key.bound)
        del succ, src
        if total + len(new) > max_states:
            return _stopped(mode, "budget", total, t,
                            f"state budget of {max_states:,} exceeded: layer {t + 1} would "
                            f"bring the stored states to {total + len(new):,}")
        visited = merge_sorted(visited, new)
        layers.append(new)
        forward.append(edges)
        total += len(new)
        t += 1
        if progress is not None:
            progress(t, total)
        if len(new) == 0:
            return SearchResult(mode, "unreachable", False, None, 0, (), None, total, t,
                                f"no arrival: all {total:,} reachable states explored")


def initial_state(track: Track) -> tuple[int, int, int, int, int, int, int]:
    """The configured car at rest: (x, y, 0, 0, layer, progress 0, phase 0)."""
    x0, y0 = track.car.position
    return (x0, y0, 0, 0, track.car.layer, 0, 0)


def _stopped(mode: Mode, status: Status, total: int, depth: int, message: str
             ) -> SearchResult:
    return SearchResult(mode, status, None, None, 0, (), None, total, depth, message)


def _layer_fields(key: StateKey, keys: np.ndarray, t: int, kmax: int, mode: Mode
                  ) -> tuple[np.ndarray, ...]:
    """Decoded states of layer t; in editor mode the phase is min(t, K)."""
    fields = key.decode(keys)
    if mode == "editor":
        fields = (*fields[:6], np.full(len(keys), min(t, kmax), dtype=np.int64))
    return fields


def _expand(geom: FastGeometry, key: StateKey, keys: np.ndarray, t: int, mode: Mode,
            accept: AcceptFn | None) -> tuple[np.ndarray, np.ndarray, _Arrivals]:
    """Successor keys and sources of a layer, or its arriving moves if it has any."""
    kmax = geom.k
    arrivals = _Arrivals([], [])
    succ: list[np.ndarray] = []
    srcs: list[np.ndarray] = []
    for lo in range(0, len(keys), CHUNK):
        fields = _layer_fields(key, keys[lo: lo + CHUNK], t, kmax, mode)
        m = geom.valid_moves(*fields)
        arr = np.flatnonzero(m.arrives)
        if len(arr) and accept is not None:
            arrived_phase = np.minimum(fields[6][m.src[arr]] + 1, kmax)
            arr = arr[accept(*(getattr(m, f)[arr] for f in
                               ("x", "y", "vx", "vy", "layer", "progress")), arrived_phase)]
        if len(arr):
            arrivals.src.append(m.src[arr] + lo)
            arrivals.fields.append(tuple(getattr(m, f)[arr] for f in
                                         ("x", "y", "vx", "vy", "layer", "progress")))
        if arrivals.src:
            continue  # this is the last layer: only arrivals matter now
        go = np.flatnonzero(~m.arrives)  # an arrival, accepted or not, ends there
        phase = np.minimum(fields[6][m.src[go]] + 1, kmax) if mode == "exact" else 0
        phase = np.broadcast_to(np.asarray(phase, dtype=np.int64), go.shape)
        succ.append(key.encode(m.x[go], m.y[go], m.vx[go], m.vy[go], m.layer[go],
                               m.progress[go], phase))
        srcs.append((m.src[go] + lo).astype(np.int32))
    if arrivals.src or not succ:
        return np.zeros(0, np.int64), np.zeros(0, np.int32), arrivals
    return np.concatenate(succ), np.concatenate(srcs), arrivals


def _new_states(succ: np.ndarray, src: np.ndarray, visited: np.ndarray, rows: int,
                bound: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The states first reached now (sorted keys) and the moves into them as int32
    (src, dst) edges, grouped by dst (`_finish` puts the optimal DAG's edges back in
    (src, dst) order); `succ` is overwritten.

    Each successor is packed as ``key << bits | src`` (`bits` covers the layer's `rows`)
    and the packed values sorted by one 1-D `np.sort`; `search_kernel.first_reached`
    then reads them once against `visited`. Keys too wide to pack with their row (not
    on grids of practical size) take `np.unique` instead.
    """
    bits = max(1, (rows - 1).bit_length())
    if bound << bits < 2**63:
        packed = succ  # packed and sorted in place: the caller's array is scratch
        np.left_shift(packed, bits, out=packed)
        np.bitwise_or(packed, src, out=packed)
        packed.sort()
        e_src = np.empty(len(packed), dtype=np.int32)
        e_dst = np.empty(len(packed), dtype=np.int32)
        n_new, n_edges = first_reached(packed, bits, visited, e_src, e_dst)
        return packed[:n_new].copy(), (e_src[:n_edges].copy(), e_dst[:n_edges].copy())
    uniq, inverse = np.unique(succ, return_inverse=True)
    pos = np.searchsorted(visited, uniq)
    seen = np.zeros(len(uniq), dtype=bool)
    inside = pos < len(visited)
    seen[inside] = visited[pos[inside]] == uniq[inside]
    fresh = ~seen
    index = np.where(fresh, np.cumsum(fresh) - 1, -1)
    dst = index[inverse.ravel()]
    keep = dst >= 0
    return uniq[fresh], (src[keep].astype(np.int32), dst[keep].astype(np.int32))


def _finish(geom: FastGeometry, key: StateKey, layers: list[np.ndarray],
            forward: list[tuple[np.ndarray, np.ndarray]], arrivals: _Arrivals,
            mode: Mode) -> LayeredDag:
    """Backward pass to the optimal DAG, then exact counts forward."""
    last = len(layers) - 1
    a_src = np.concatenate(arrivals.src)
    a_fields = [np.concatenate(parts) for parts in zip(*arrivals.fields, strict=True)]
    keep = [np.zeros(len(k), dtype=bool) for k in layers]
    keep[last][a_src] = True
    for t in range(last - 1, -1, -1):
        src, dst = forward[t]
        keep[t][src[keep[t + 1][dst]]] = True
    dag_layers = tuple(StateLayer(*_layer_fields(key, layers[t][keep[t]], t, geom.k, mode))
                       for t in range(last + 1))
    dag_edges = []
    for t in range(last):  # the DAG's rows: a layer's index among its kept states
        src, dst = forward[t]
        m = keep[t][src] & keep[t + 1][dst]
        s_row, d_row = _rows(keep[t], src[m]), _rows(keep[t + 1], dst[m])
        n_next = len(dag_layers[t + 1])
        pair = np.sort(s_row * n_next + d_row)
        dag_edges.append(tuple(np.divmod(pair, n_next)))  # (src, dst) order
    arrive_src = _rows(keep[last], a_src)
    finals, arrive_final = _finals(key, a_fields[:5])
    limbs = _forward_limbs([len(layer) for layer in dag_layers], dag_edges)
    arrival_limbs = limbs[last][:, arrive_src]
    final_limbs = _sum_limbs(arrival_limbs, arrive_final, len(finals))
    final_counts = tuple(int(c) for c in _to_ints(final_limbs))
    return LayeredDag(mode, last + 1, dag_layers, tuple(dag_edges), arrive_src, arrive_final,
                      *a_fields, finals, tuple(_to_ints(c) for c in limbs),
                      _to_ints(arrival_limbs), final_counts, sum(final_counts))


def _rows(kept: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The rows among the kept states (mask `kept`) of the kept states `index`."""
    return np.flatnonzero(kept).searchsorted(index).astype(np.int64)


def _finals(key: StateKey, kin: list[np.ndarray]) -> tuple[FinalStates, np.ndarray]:
    """The distinct kinematic states (x, y, vx, vy, layer) of the arrivals, sorted, and
    each arrival's index among them: one int64 per row whose order is the rows' order."""
    x, y, vx, vy, layer = kin
    packed = ((x * key.h + y) * key.rvx + (vx + key.w - 1)) * key.rvy + (vy + key.h - 1)
    uniq, index = np.unique(packed * 2 + layer, return_inverse=True)
    rest, lay = np.divmod(uniq, 2)
    rest, fvy = np.divmod(rest, key.rvy)
    rest, fvx = np.divmod(rest, key.rvx)
    fx, fy = np.divmod(rest, key.h)
    finals = FinalStates(fx, fy, fvx - (key.w - 1), fvy - (key.h - 1), lay)
    return finals, index.ravel().astype(np.int64)


# -- exact counts in 24-bit limbs ----------------------------------------------------


def _forward_limbs(sizes: list[int], edges: list[tuple[np.ndarray, np.ndarray]]
                   ) -> list[np.ndarray]:
    """Path counts per layer as (limbs, states) int64 arrays, limb j weighing 2^(24 j)."""
    cur = np.ones((1, sizes[0]), dtype=np.int64)
    out = [cur]
    for t, (src, dst) in enumerate(edges):
        cur = _sum_limbs(cur[:, src], dst, sizes[t + 1])
        out.append(cur)
    return out


def _sum_limbs(values: np.ndarray, into: np.ndarray, size: int) -> np.ndarray:
    """Exact sums of limb columns grouped by `into`, carried back to 24-bit limbs.

    Each limb is summed by `np.bincount` in float64: every term is below 2^24 and
    no group has 2^29 terms, so every partial sum is an integer below 2^53 (exact).
    """
    if len(into) and np.bincount(into).max() >= 1 << 29:
        raise ValueError("too many terms in one exact limb sum")
    sums = [np.bincount(into, weights=row, minlength=size).astype(np.int64) for row in values]
    out: list[np.ndarray] = []
    carry = np.zeros(size, dtype=np.int64)
    for row in sums:
        row = row + carry
        carry = row >> LIMB_BITS
        out.append(row & _LIMB_MASK)
    while carry.any():
        out.append(carry & _LIMB_MASK)
        carry >>= LIMB_BITS
    return np.stack(out) if out else np.zeros((1, size), dtype=np.int64)


def _to_ints(limbs: np.ndarray) -> np.ndarray:
    """Limb columns as a numpy object array of Python ints."""
    total = np.zeros(limbs.shape[1], dtype=object)
    for j in range(limbs.shape[0] - 1, -1, -1):
        total = total * (1 << LIMB_BITS) + limbs[j].astype(object)
    return total
