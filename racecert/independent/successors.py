"""Batch successor generation for the independent searches, from the verify geometry.

A *classify* function takes states as aligned int64 arrays (x, y, vx, vy,
layer, progress, phase) and returns every one of their nine moves as one
`racecert.independent.fastgeom.Moves` (row 9·i + a: state i with acceleration a):
`code` 0 for a valid move, the new position, velocity, layer and progress, and
whether the move arrives. The new phase is the caller's business (min(phase + 1, K)).

This is the interface of the independent fast geometry's `classify`, so the
searches here take either it or `geometry_classifier` below, which answers the
same questions move by move with `racecert.independent.geometry.Geometry` (exact
`Fraction` clipping; slow, but the reference).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from racecert.independent.fastgeom import Moves
from racecert.independent.geometry import Geometry, VState
from racecert.independent.race_rules import ACCELS
from racecert.model.track import Track

# Accelerations in batch order: row 9·i + a has acceleration ACCELS[a].
VALID = 0
INVALID = 1


Classify = Callable[..., Moves]
"""classify(x, y, vx, vy, layer, progress, phase) -> `Moves`."""


def geometry_classifier(track: Track) -> Classify:
    """A `Classify` built on the verify geometry, one `Geometry.move` per candidate move."""
    geometry = Geometry(track)

    def classify(x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                 layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> Moves:
        n = len(x)
        out = np.zeros((9 * n, 6), dtype=np.int64)
        code = np.full(9 * n, INVALID, dtype=np.int8)
        arrives = np.zeros(9 * n, dtype=bool)
        rows = zip(x.tolist(), y.tolist(), vx.tolist(), vy.tolist(), layer.tolist(),
                   progress.tolist(), phase.tolist(), strict=True)
        for i, row in enumerate(rows):
            state = VState(*row)
            for a, accel in enumerate(ACCELS):
                verdict = geometry.move(state, accel)
                if not verdict.valid or verdict.state is None:
                    continue
                s = verdict.state
                r = 9 * i + a
                code[r] = VALID
                arrives[r] = verdict.arrives
                out[r] = (s.x, s.y, s.vx, s.vy, s.layer, s.progress)
        src = np.repeat(np.arange(n, dtype=np.int64), 9)
        accel = np.tile(np.arange(9, dtype=np.int64), n)
        return Moves(src, accel, code, *out.T, arrives)

    return classify
