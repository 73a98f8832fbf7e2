"""Move validity on the whole explored state space, vectorised: model rules vs fastgeom.

Layer by layer from the initial state (the exact key), every state the oracle's
rules reach within `depth` moves is expanded twice: by the rules the BFS oracle
uses (`racecert.model.rules.VectorRaceRules.expand`: clearance tables and row
runs) and by `racecert.independent.fastgeom.FastGeometry.classify` (touched cells
by corner signs, integer entry order), which shares no code with it. For all 9
accelerations of every state the two must agree on validity, on the successor
(x, y, vx, vy, layer, progress), and on arrival; the model's new phase must be
min(phase + 1, K). Both sides are compared as sorted int64 keys, so the check
costs a few array passes per layer, not a Python loop per move.

`depth` is m* for a reachable track: every state any layered BFS of the track
expands lies within it (the states the oracle explored). Unreachable tracks are
explored until no new state appears. `max_states` bounds the work (a deterministic
budget); the result says whether the exploration was complete.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.independent.fastgeom import OK, FastGeometry
from racecert.model.rules import StateArrays, VectorRaceRules
from racecert.model.states import StateCodec
from racecert.model.track import Track

ACCELS = tuple((ax, ay) for ay in (-1, 0, 1) for ax in (-1, 0, 1))


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


def _move_keys(src: np.ndarray, vx: np.ndarray, vy: np.ndarray, span: int) -> np.ndarray:
    """One int64 per (source row, new velocity): velocities lie in [-span, span]."""
    w = 2 * span + 1
    return (src.astype(np.int64) * w + (vx + span)) * w + (vy + span)


def _model_moves(exp, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted move keys, rows: x, y, vx, vy, layer, progress, phase, arrives) of the model."""
    succ = StateArrays.concat([exp.succ, exp.arrive_state])
    src = np.concatenate([exp.src, exp.arrive_src])
    arrives = np.concatenate([np.zeros(len(exp.src), dtype=np.int64),
                              np.ones(len(exp.arrive_src), dtype=np.int64)])
    rows = np.stack([f.astype(np.int64) for f in succ.fields()] + [arrives], axis=1)
    keys = _move_keys(src, succ.vx.astype(np.int64), succ.vy.astype(np.int64), span)
    order = np.argsort(keys, kind="stable")
    return keys[order], rows[order]


def _fast_moves(geom: FastGeometry, batch: StateArrays, span: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted move keys, rows: x, y, vx, vy, layer, progress, arrives, source phase) of
    fastgeom's valid moves."""
    f = [a.astype(np.int64) for a in batch.fields()]
    mv = geom.classify(*f)
    ok = mv.code == OK
    keys = _move_keys(mv.src[ok], mv.vx[ok], mv.vy[ok], span)
    rows = np.stack([mv.x[ok], mv.y[ok], mv.vx[ok], mv.vy[ok], mv.layer[ok],
                     mv.progress[ok], mv.arrives[ok].astype(np.int64)], axis=1)
    order = np.argsort(keys, kind="stable")
    return keys[order], rows[order], f[6][mv.src[ok][order]]


def _describe(batch: StateArrays, key: int, span: int, what: str) -> str:
    w = 2 * span + 1
    src, rest = divmod(int(key), w * w)
    vx, vy = rest // w - span, rest % w - span
    s = tuple(int(a[src]) for a in batch.fields())
    return f"state {s}, new velocity ({vx}, {vy}): {what}"


def _compare(batch: StateArrays, model: tuple[np.ndarray, np.ndarray],
             fast: tuple[np.ndarray, np.ndarray, np.ndarray], span: int, k: int,
             room: int) -> list[str]:
    """Up to `room` disagreements between the two sorted move lists of one layer."""
    mk, mrows = model
    fk, frows, fphase = fast
    out: list[str] = []
    only_model = np.setdiff1d(mk, fk)
    only_fast = np.setdiff1d(fk, mk)
    out += [_describe(batch, x, span, "valid for the model only") for x in only_model[:room]]
    out += [_describe(batch, x, span, "valid for fastgeom only") for x in only_fast[:room]]
    if len(only_model) or len(only_fast) or len(mk) != len(fk) or np.any(mk != fk):
        return out[:room] or ["the two move lists differ in length"]
    same_columns = [0, 1, 2, 3, 4, 5, 7]  # model rows: x y vx vy layer progress PHASE arrives
    differ = np.flatnonzero(np.any(mrows[:, same_columns] != frows, axis=1))
    for i in differ[:room]:
        out.append(_describe(batch, mk[i], span, f"model -> {tuple(mrows[i].tolist())}, "
                                                 f"fastgeom -> {tuple(frows[i].tolist())}"))
    want_phase = np.minimum(fphase + 1, k)
    bad_phase = np.flatnonzero(mrows[:, 6] != want_phase)
    for i in bad_phase[: max(0, room - len(out))]:
        out.append(_describe(batch, mk[i], span, f"model phase {mrows[i, 6]}, expected "
                                                 f"{want_phase[i]}"))
    return out


def _first_of_each(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (sorted) and the index of the first row holding each (a sort and a
    scan: faster than np.unique on large int64 arrays)."""
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    head = np.ones(len(ks), dtype=bool)
    head[1:] = ks[1:] != ks[:-1]
    return ks[head], order[head]


def crosscheck_fast_geometry(track: Track, depth: int | None, *, max_states: int = 5_000_000,
                             max_reported: int = 20,
                             geometry: FastGeometry | None = None) -> FastGeometryCheck:
    """Compare the two geometries on every move of every state reachable within `depth`
    moves (None: until no new state appears). `geometry` lets a test inject a broken one."""
    rules = VectorRaceRules(track)
    geom = geometry or FastGeometry(track)
    k = rules.phase_limit
    codec = StateCodec(track.width, track.height, k + 1, keep_phase=True)
    span = max(track.width, track.height)
    frontier = StateArrays.of([rules.initial_state()])
    seen = np.sort(codec.encode(frontier))
    states = moves = valid = arriving = t = 0
    found: list[str] = []
    while len(frontier) and (depth is None or t < depth):
        if states + len(frontier) > max_states:
            return FastGeometryCheck(states, moves, valid, arriving, t, False, tuple(found))
        exp = rules.expand(frontier)
        model = _model_moves(exp, span)
        fast = _fast_moves(geom, frontier, span)
        found += _compare(frontier, model, fast, span, k, max_reported - len(found))
        states += len(frontier)
        moves += 9 * len(frontier)
        valid += len(model[0])
        arriving += len(exp.arrive_src)
        keys, first = _first_of_each(codec.encode(exp.succ))
        pos = np.searchsorted(seen, keys)
        fresh = (pos == len(seen)) | (seen[np.minimum(pos, len(seen) - 1)] != keys)
        frontier = exp.succ.take(first[fresh])
        seen = np.sort(np.concatenate([seen, keys[fresh]]))
        t += 1
        if len(found) >= max_reported:
            break
    return FastGeometryCheck(states, moves, valid, arriving, t,
                             len(frontier) == 0 or depth is not None, tuple(found))
