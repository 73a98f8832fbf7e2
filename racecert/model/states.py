"""Integer encoding of states: one int64 key per state.

Velocities are bounded by the grid (a move cannot leave it), so
(x, y, vx, vy, layer, progress, phase) packs into a mixed-radix int64 that
sorts, deduplicates and searches as plain numbers. The `editor` key drops the
phase (docs/rules.md): the codec is told which fields belong to the key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from racecert.model.rules import StateArrays


@dataclass(frozen=True)
class StateCodec:
    """Mixed-radix packing of states of a W x H track with up to `phases` phases.

    >>> c = StateCodec(10, 5, 1)
    >>> import numpy as np
    >>> from racecert.model.rules import CarState
    >>> b = StateArrays.of([CarState(3, 2, -1, 4, 0, 1, 0)])
    >>> c.decode(c.encode(b)).state(0)
    CarState(x=3, y=2, vx=-1, vy=4, layer=0, progress=1, phase=0)
    """

    width: int
    height: int
    phases: int = 1
    keep_phase: bool = True

    @property
    def _radices(self) -> tuple[int, ...]:
        # x, y, vx, vy, layer, progress, phase
        return (self.width, self.height, 2 * self.width - 1, 2 * self.height - 1, 2, 2,
                self.phases)

    @property
    def key_bound(self) -> int:
        """An exclusive upper bound of the keys (all keys are >= 0)."""
        bound = 1
        for r in self._radices[:6]:
            bound *= r
        return bound * (self.phases if self.keep_phase else 1)

    def encode(self, s: StateArrays) -> np.ndarray:
        """int64 keys; the phase is left out unless `keep_phase` (compiled, one pass)."""
        out = np.empty(len(s), dtype=np.int64)
        _encode(s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase, self.width, self.height,
                self.keep_phase, out)
        return out

    def decode(self, key: np.ndarray) -> StateArrays:
        """Inverse of `encode` (phase 0 when the key has none; compiled, one pass)."""
        cols = np.empty((7, len(key)), dtype=np.int32)
        _decode(np.ascontiguousarray(key, dtype=np.int64), self.width, self.height, cols)
        return StateArrays(*cols)

    def kinematic(self, s: StateArrays, span: tuple[int, int] | None = None) -> np.ndarray:
        """Keys of (x, y, vx, vy, layer) only: what distinguishes final states, in the
        order (layer, vy, vx, y, x). A final state is never stored, and under the
        cell-path rules an arriving move may stop short of p + v' with |v'| beyond the
        grid's range, so the velocity digits widen to the data (the order is the same).
        `span` = (ox, oy) gives those digits' half-ranges instead, for keys computed a part
        at a time: at least (width - 1, height - 1) and every |vx|, |vy| of the data."""
        w, h = self.width, self.height
        ox, oy = span or (max(w - 1, int(np.abs(s.vx).max(initial=0))),
                          max(h - 1, int(np.abs(s.vy).max(initial=0))))
        key = s.layer.astype(np.int64)
        key = key * (2 * oy + 1) + (s.vy.astype(np.int64) + oy)
        key = key * (2 * ox + 1) + (s.vx.astype(np.int64) + ox)
        key = key * h + s.y
        return key * w + s.x


@njit(cache=True, nogil=True)
def _encode(x, y, vx, vy, layer, progress, phase, w, h, keep_phase, out):
    """The mixed-radix key of each state (radices as `StateCodec._radices`)."""
    rvx, rvy = 2 * w - 1, 2 * h - 1
    for i in range(len(out)):
        key = np.int64(progress[i])
        if keep_phase:
            key += 2 * np.int64(phase[i])
        key = key * 2 + layer[i]
        key = key * rvy + (vy[i] + h - 1)
        key = key * rvx + (vx[i] + w - 1)
        key = key * h + y[i]
        out[i] = key * w + x[i]


@njit(cache=True, nogil=True)
def _decode(keys, w, h, cols):
    """Rows x, y, vx, vy, layer, progress, phase of `cols` from the keys.

    A key is block * (w h) + cell; the block's fields are decoded only when it differs
    from the previous key's (sorted keys share blocks in long runs), so most keys cost
    two divisions instead of six."""
    rvx, rvy = 2 * w - 1, 2 * h - 1
    cells = w * h
    last = np.int64(-1)
    vx = vy = layer = prog = phase = 0
    for i in range(len(keys)):
        block = keys[i] // cells
        cell = keys[i] - block * cells
        if block != last:
            last = block
            k = block
            vx = k % rvx - (w - 1)
            k //= rvx
            vy = k % rvy - (h - 1)
            k //= rvy
            layer = k % 2
            k //= 2
            prog = k % 2
            phase = k // 2
        y = cell // w
        cols[0, i] = cell - y * w
        cols[1, i] = y
        cols[2, i] = vx
        cols[3, i] = vy
        cols[4, i] = layer
        cols[5, i] = prog
        cols[6, i] = phase
