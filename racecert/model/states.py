"""Integer encoding of states: one int64 key per state.

Velocities are bounded by the grid (a move cannot leave it), so
(x, y, vx, vy, layer, progress, phase) packs into a mixed-radix int64 that
sorts, deduplicates and searches as plain numbers. The `editor` key drops the
phase (SPEC §4): the codec is told which fields belong to the key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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

    def encode(self, s: StateArrays) -> np.ndarray:
        """int64 keys; the phase is left out unless `keep_phase`."""
        w, h, rvx, rvy, _, _, _ = self._radices
        phase = s.phase.astype(np.int64) if self.keep_phase else 0
        key = phase * 2 + s.progress.astype(np.int64)
        key = key * 2 + s.layer
        key = key * rvy + (s.vy.astype(np.int64) + (h - 1))
        key = key * rvx + (s.vx.astype(np.int64) + (w - 1))
        key = key * h + s.y
        return key * w + s.x

    def decode(self, key: np.ndarray) -> StateArrays:
        """Inverse of `encode` (phase 0 when the key has none)."""
        w, h, rvx, rvy, _, _, _ = self._radices
        k = key.astype(np.int64)
        x = k % w
        k //= w
        y = k % h
        k //= h
        vx = k % rvx - (w - 1)
        k //= rvx
        vy = k % rvy - (h - 1)
        k //= rvy
        layer = k % 2
        k //= 2
        progress = k % 2
        phase = k // 2
        return StateArrays(*(a.astype(np.int32) for a in (x, y, vx, vy, layer, progress, phase)))

    def kinematic(self, s: StateArrays) -> np.ndarray:
        """Keys of (x, y, vx, vy, layer) only: what distinguishes final states."""
        w, h, rvx, rvy, _, _, _ = self._radices
        key = s.layer.astype(np.int64)
        key = key * rvy + (s.vy.astype(np.int64) + (h - 1))
        key = key * rvx + (s.vx.astype(np.int64) + (w - 1))
        key = key * h + s.y
        return key * w + s.x
