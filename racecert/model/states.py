"""Integer encoding of states: one int64 key per state.

Velocities are bounded by the grid (a move cannot leave it), so
(x, y, vx, vy, layer, progress, phase) packs into a mixed-radix int64 that
sorts, deduplicates and searches as plain numbers. The `editor` key drops the
phase (docs/rules.md): the codec is told which fields belong to the key.
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

    @property
    def key_bound(self) -> int:
        """An exclusive upper bound of the keys (all keys are >= 0)."""
        bound = 1
        for r in self._radices[:6]:
            bound *= r
        return bound * (self.phases if self.keep_phase else 1)

    def encode(self, s: StateArrays) -> np.ndarray:
        """int64 keys; the phase is left out unless `keep_phase`."""
        w, h, rvx, rvy, _, _, _ = self._radices
        key = s.progress.astype(np.int64)
        if self.keep_phase:
            key += 2 * s.phase
        key *= 2
        key += s.layer
        key *= rvy
        key += s.vy
        key *= rvx
        key += s.vx
        key *= h
        key += s.y
        key *= w
        key += s.x
        # the velocity offsets (w - 1, h - 1), folded into one constant
        key += ((h - 1) * rvx + (w - 1)) * h * w
        return key

    def decode(self, key: np.ndarray) -> StateArrays:
        """Inverse of `encode` (phase 0 when the key has none)."""
        w, h, rvx, rvy, _, _, _ = self._radices
        k, x = np.divmod(key.astype(np.int64), w)
        k, y = np.divmod(k, h)
        k, vx = np.divmod(k, rvx)
        k, vy = np.divmod(k, rvy)
        k, layer = np.divmod(k, 2)
        phase, progress = np.divmod(k, 2)
        vx -= w - 1
        vy -= h - 1
        return StateArrays(*(a.astype(np.int32) for a in (x, y, vx, vy, layer, progress, phase)))

    def kinematic(self, s: StateArrays) -> np.ndarray:
        """Keys of (x, y, vx, vy, layer) only: what distinguishes final states."""
        w, h, rvx, rvy, _, _, _ = self._radices
        key = s.layer.astype(np.int64)
        key = key * rvy + (s.vy.astype(np.int64) + (h - 1))
        key = key * rvx + (s.vx.astype(np.int64) + (w - 1))
        key = key * h + s.y
        return key * w + s.x
