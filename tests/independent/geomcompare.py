"""Helpers for the geometry tests: sample states and compare FastGeometry with the others."""

from __future__ import annotations

from functools import cache

import numpy as np

from racecert.independent.fastgeom import (
    NOT_ENDABLE,
    OFF_GRID,
    OFF_TRACK,
    OK,
    OPENING,
    WRONG_WAY,
    ZERO,
    FastGeometry,
)
from racecert.independent.geometry import Geometry, VState
from racecert.independent.race_rules import ACCELS
from racecert.model.track import Track

_REASON_PREFIXES = (("zero velocity", ZERO), ("opening rule", OPENING),
                    ("leaves the grid", OFF_GRID), ("touches", OFF_TRACK),
                    ("ends on", NOT_ENDABLE), ("wrong way", WRONG_WAY))


@cache
def verify_code(reason: str) -> int:
    """The fastgeom reason code of a verify-geometry reason string."""
    for prefix, code in _REASON_PREFIXES:
        if reason.startswith(prefix):
            return code
    return OK if reason == "ok" else -1


def sample_states(track: Track, n: int, seed: int, vmax: int = 6) -> np.ndarray:
    """n deterministic pseudo-random states (x, y, vx, vy, layer, progress, phase).

    Positions are drivable cells of their layer (where moves start in practice);
    velocities are uniform in [-vmax, vmax]^2; progress 0/1; phase 0..K.
    """
    g = FastGeometry(track)
    rng = np.random.default_rng(seed)
    cells = np.flatnonzero(g.drive[: (2 if g.two_layers else 1) * g.plane])
    pick = cells[rng.integers(0, len(cells), n)]
    layer, rest = np.divmod(pick, g.plane)
    y, x = np.divmod(rest, track.width)
    vx = rng.integers(-vmax, vmax + 1, n)
    vy = rng.integers(-vmax, vmax + 1, n)
    progress = rng.integers(0, 2, n)
    phase = rng.integers(0, g.k + 1, n)
    return np.stack([x, y, vx, vy, layer, progress, phase], axis=1).astype(np.int64)


def compare_with_verify(track: Track, states: np.ndarray,
                        fast: FastGeometry | None = None) -> list[str]:
    """Every move of every state by both geometries; returns the disagreements (empty: agree)."""
    fast = fast or FastGeometry(track)
    ref = Geometry(track)
    m = fast.classify(*(states[:, j] for j in range(7)))
    # as Python lists once (row r = 9 * state + acceleration), not a numpy scalar per field
    code, arrives = m.code.tolist(), m.arrives.tolist()
    nxt = list(zip(m.x.tolist(), m.y.tolist(), m.vx.tolist(), m.vy.tolist(),
                   m.layer.tolist(), m.progress.tolist(), strict=True))
    out = []
    for i, row in enumerate(states.tolist()):
        s = VState(*row)
        for a, acc in enumerate(ACCELS):
            r = 9 * i + a
            v = ref.move(s, acc)
            mine = (code[r], nxt[r], arrives[r]) if code[r] == OK else (code[r], None, False)
            theirs = (verify_code(v.reason), v.state.as_tuple()[:6] if v.state else None,
                      v.arrives)
            if mine != theirs:
                out.append(f"{row} accel {acc}: fastgeom {mine}, verify {theirs} ({v.reason})")
    return out


def reachable_states(track: Track, limit: int) -> np.ndarray:
    """Every state reachable from the car without arriving (exact key), as rows; if there are
    more than `limit`, a deterministic sample of `limit` of them (evenly spaced by key)."""
    g = FastGeometry(track)
    w, h = track.width, track.height
    dims = (2 * w, 2 * h, 2, 2, g.k + 1, h, w)  # vx + w, vy + h, layer, progress, phase, y, x

    def key(r: np.ndarray) -> np.ndarray:
        return np.ravel_multi_index((r[:, 2] + w, r[:, 3] + h, r[:, 4], r[:, 5], r[:, 6],
                                     r[:, 1], r[:, 0]), dims)

    x0, y0 = track.car.position
    frontier = np.array([[x0, y0, 0, 0, track.car.layer, 0, 0]], dtype=np.int64)
    rows, seen = [frontier], key(frontier)
    while len(frontier):
        m = g.classify(*(frontier[:, j] for j in range(7)))
        ok = (m.code == OK) & ~m.arrives
        phase = np.minimum(frontier[m.src, 6] + 1, g.k)
        nxt = np.stack([m.x, m.y, m.vx, m.vy, m.layer, m.progress, phase], axis=1)[ok]
        k, first = np.unique(key(nxt), return_index=True)
        # `seen` is kept sorted: membership by binary search, not np.isin / np.union1d
        # (which re-hash or re-sort all of it on every layer: seconds on llanura)
        at = np.minimum(np.searchsorted(seen, k), len(seen) - 1)
        new = seen[at] != k
        frontier = nxt[first[new]]
        seen = np.sort(np.concatenate([seen, k[new]]), kind="stable")
        rows.append(frontier)
    out = np.concatenate(rows)
    out = out[np.argsort(key(out))]
    if len(out) > limit:
        out = out[np.linspace(0, len(out) - 1, limit).astype(np.int64)]
    return out
