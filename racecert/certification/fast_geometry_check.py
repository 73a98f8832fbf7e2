"""Move validity on the whole explored state space, vectorised: model rules vs fastgeom.

Layer by layer from the initial state (the exact key), every state the oracle's
rules reach within `depth` moves is expanded twice: by the rules the BFS oracle
uses (`racecert.model.rules.VectorRaceRules.expand`: clearance tables and row
runs) and by `racecert.independent.fastgeom.FastGeometry.classify` (touched cells
by corner signs, integer entry order), which shares no code with it. For all 9
accelerations of every state the two must agree on validity, on the successor
(x, y, vx, vy, layer, progress), and on arrival; the model's new phase must be
min(phase + 1, K). Each state is expanded once (a state reached again is not
re-expanded), in chunks of `CHUNK` states, and both sides are compared as sorted
int64 move keys (one per source state and new velocity) and aligned columns, so the
check costs a few array passes per chunk, not a Python loop per move, and its
transient memory is bounded by the chunk, not by the layer.

`depth` is m* for a reachable track: every state any layered BFS of the track
expands lies within it (the states the oracle explored). Unreachable tracks are
explored until no new state appears. `max_states` bounds the work (a deterministic
budget); the result says whether the exploration was complete. `progress(states,
layer)` (optional) is told after each chunk how many states are checked so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from racecert.independent.fastgeom import FastGeometry
from racecert.model.rules import StateArrays, VectorRaceRules
from racecert.model.states import StateCodec
from racecert.model.track import Track


@dataclass(frozen=True)
class FastGeometryCheck:
    """The outcome: states and moves compared, whether the exploration was complete,
    and the first disagreements (as readable strings)."""

    states: int
    moves: int
    valid_moves: int
    arriving_moves: int
    depth: int
    complete: bool
    disagreements: tuple[str, ...]

    @property
    def agree(self) -> bool:
        return not self.disagreements


CHUNK = 1 << 16
"""States expanded per chunk (the nine-fold move arrays of one chunk stay small)."""
ProgressFn = Callable[[int, int], None]  # (states checked so far, layer)


def _move_keys(src: np.ndarray, vx: np.ndarray, vy: np.ndarray, span: int) -> np.ndarray:
    """One int64 per (source row, new velocity): velocities lie in [-span, span]."""
    w = 2 * span + 1
    return (src.astype(np.int64) * w + (vx.astype(np.int64) + span)) * w + (vy + span)


def _model_moves(exp, span: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """(sorted move keys, columns x, y, vx, vy, layer, progress, phase, arrives) of the
    model's valid moves, in key order."""
    src = np.concatenate([exp.src, exp.arrive_src])
    cols = [np.concatenate([a, b]) for a, b in zip(exp.succ.fields(),
                                                    exp.arrive_state.fields(), strict=True)]
    cols.append(np.concatenate([np.zeros(len(exp.src), dtype=np.int8),
                                np.ones(len(exp.arrive_src), dtype=np.int8)]))
    keys = _move_keys(src, cols[2], cols[3], span)
    if not np.any(keys[1:] <= keys[:-1]):  # already in key order (a chunk with no arrival)
        return keys, cols
    order = np.argsort(keys, kind="stable")
    return keys[order], [c[order] for c in cols]


def _fast_moves(geom: FastGeometry, batch: StateArrays, span: int
                ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """(sorted move keys, columns x, y, vx, vy, layer, progress, arrives, source phase) of
    fastgeom's valid moves, in key order (`valid_moves` lists them by source row and
    acceleration, which is key order already; sorted again if not)."""
    f = [a.astype(np.int64) for a in batch.fields()]
    mv = geom.valid_moves(*f)
    keys = _move_keys(mv.src, mv.vx, mv.vy, span)
    cols = [mv.x, mv.y, mv.vx, mv.vy, mv.layer, mv.progress, mv.arrives.astype(np.int8)]
    phase = f[6][mv.src]
    if np.any(keys[1:] <= keys[:-1]):
        order = np.argsort(keys, kind="stable")
        keys, cols, phase = keys[order], [c[order] for c in cols], phase[order]
    return keys, cols, phase


def _describe(batch: StateArrays, key: int, span: int, what: str) -> str:
    w = 2 * span + 1
    src, rest = divmod(int(key), w * w)
    vx, vy = rest // w - span, rest % w - span
    s = tuple(int(a[src]) for a in batch.fields())
    return f"state {s}, new velocity ({vx}, {vy}): {what}"


def _members(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which of `keys` occur in the sorted array `sorted_keys`."""
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[pos] == keys


def _compare(batch: StateArrays, model: tuple[np.ndarray, list[np.ndarray]],
             fast: tuple[np.ndarray, list[np.ndarray], np.ndarray], span: int, k: int,
             room: int) -> list[str]:
    """Up to `room` disagreements between the two sorted move lists of one chunk."""
    mk, mcols = model
    fk, fcols, fphase = fast
    if not np.array_equal(mk, fk):  # also unequal when the lengths differ
        only_model = mk[~_members(mk, fk)]
        only_fast = fk[~_members(fk, mk)]
        out = [_describe(batch, x, span, "valid for the model only") for x in only_model[:room]]
        out += [_describe(batch, x, span, "valid for fastgeom only") for x in only_fast[:room]]
        return out[:room] or ["the two move lists differ in length (a repeated move key)"]
    pairs = [(mcols[j], fcols[j]) for j in range(6)] + [(mcols[7], fcols[6])]
    differ = np.zeros(len(mk), dtype=bool)
    for a, b in pairs:  # x y vx vy layer progress, arrives
        differ |= a != b
    out: list[str] = []
    for i in np.flatnonzero(differ)[:room]:
        model_row = tuple(int(c[i]) for c in mcols)
        fast_row = tuple(int(c[i]) for c in fcols)
        out.append(_describe(batch, mk[i], span, f"model -> {model_row}, "
                                                 f"fastgeom -> {fast_row}"))
    want_phase = np.minimum(fphase + 1, k)
    bad_phase = np.flatnonzero(mcols[6] != want_phase)
    for i in bad_phase[: max(0, room - len(out))]:
        out.append(_describe(batch, mk[i], span, f"model phase {mcols[6][i]}, expected "
                                                 f"{want_phase[i]}"))
    return out


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, sorted (a sort and a scan: faster than np.unique on int64);
    `keys` is sorted in place."""
    keys.sort()  # in place: the caller's concatenation is scratch
    head = np.ones(len(keys), dtype=bool)
    head[1:] = keys[1:] != keys[:-1]
    return keys[head]


def crosscheck_fast_geometry(track: Track, depth: int | None, *, max_states: int = 5_000_000,
                             max_reported: int = 20,
                             geometry: FastGeometry | None = None,
                             progress: ProgressFn | None = None) -> FastGeometryCheck:
    """Compare the two geometries on every move of every state reachable within `depth`
    moves (None: until no new state appears). `geometry` lets a test inject a broken one."""
    rules = VectorRaceRules(track)
    geom = geometry or FastGeometry(track)
    k = rules.phase_limit
    codec = StateCodec(track.width, track.height, k + 1, keep_phase=True)
    span = max(track.width, track.height)
    frontier = codec.encode(StateArrays.of([rules.initial_state()]))
    seen = frontier.copy()  # sorted keys of every state expanded or queued
    states = moves = valid = arriving = t = 0
    found: list[str] = []
    while len(frontier) and (depth is None or t < depth):
        if states + len(frontier) > max_states:
            return FastGeometryCheck(states, moves, valid, arriving, t, False, tuple(found))
        succ: list[np.ndarray] = []
        for lo in range(0, len(frontier), CHUNK):
            batch = codec.decode(frontier[lo: lo + CHUNK])
            exp = rules.expand(batch)
            model = _model_moves(exp, span)
            found += _compare(batch, model, _fast_moves(geom, batch, span), span, k,
                              max_reported - len(found))
            states += len(batch)
            moves += 9 * len(batch)
            valid += len(model[0])
            arriving += len(exp.arrive_src)
            succ.append(codec.encode(exp.succ))
            if progress is not None:
                progress(states, t)
            if len(found) >= max_reported:
                return FastGeometryCheck(states, moves, valid, arriving, t + 1, False,
                                         tuple(found))
        keys = _distinct(np.concatenate(succ))
        fresh = keys[~_members(keys, seen)]
        seen = np.insert(seen, np.searchsorted(seen, fresh), fresh)
        frontier = fresh
        t += 1
    return FastGeometryCheck(states, moves, valid, arriving, t,
                             len(frontier) == 0 or depth is not None, tuple(found))
