"""The optimal layered DAG as the independent side sees it: positions, moves, arrivals.

`LayeredDag` is the input of the independent green/blue DP and red coverage.
It holds only positions: layer t has the states reached after t moves on some
optimal trajectory (layer 0 is the initial state), `edges[t] = (src, dst)`
index moves from layer t to layer t + 1, and the arriving moves leave the last
layer (`arrive_src`) towards `arrive_x`, `arrive_y`, ending in final state
`arrive_final`. A move's velocity is its displacement, so velocities and
accelerations are derived from positions (`velocities`), the initial state
being at rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LayeredDag:
    """States (positions per layer), moves between layers and arriving moves."""

    xs: tuple[np.ndarray, ...]
    ys: tuple[np.ndarray, ...]
    edges: tuple[tuple[np.ndarray, np.ndarray], ...]
    arrive_src: np.ndarray
    arrive_final: np.ndarray
    arrive_x: np.ndarray
    arrive_y: np.ndarray

    @staticmethod
    def of(dag: object) -> LayeredDag:
        """The positions view of a DAG with `layers[t].x/.y`, `edges` and `arrive_*` arrays
        (the independent search's DAG, whose states also carry velocities and layers)."""
        layers = dag.layers  # type: ignore[attr-defined]
        as64 = np.asarray
        return LayeredDag(
            tuple(as64(layer.x, dtype=np.int64) for layer in layers),
            tuple(as64(layer.y, dtype=np.int64) for layer in layers),
            tuple((as64(s, dtype=np.int64), as64(d, dtype=np.int64))
                  for s, d in dag.edges),  # type: ignore[attr-defined]
            as64(dag.arrive_src, dtype=np.int64),  # type: ignore[attr-defined]
            as64(dag.arrive_final, dtype=np.int64),  # type: ignore[attr-defined]
            as64(dag.arrive_x, dtype=np.int64),  # type: ignore[attr-defined]
            as64(dag.arrive_y, dtype=np.int64))  # type: ignore[attr-defined]

    @property
    def moves(self) -> int:
        """m*: the layers are the positions after 0 .. m* - 1 moves, plus the arriving move."""
        return len(self.xs)

    @property
    def size(self) -> int:
        return sum(len(x) for x in self.xs)

    @property
    def start(self) -> tuple[int, int]:
        return int(self.xs[0][0]), int(self.ys[0][0])

    def displacement(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(dx, dy) of each move of `edges[t]`."""
        src, dst = self.edges[t]
        return (self.xs[t + 1][dst].astype(np.int64) - self.xs[t][src],
                self.ys[t + 1][dst].astype(np.int64) - self.ys[t][src])

    def arrival_displacement(self) -> tuple[np.ndarray, np.ndarray]:
        """(dx, dy) of each arriving move."""
        last = len(self.xs) - 1
        return (self.arrive_x.astype(np.int64) - self.xs[last][self.arrive_src],
                self.arrive_y.astype(np.int64) - self.ys[last][self.arrive_src])

    def velocities(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per layer, the velocity (vx, vy) of each state: the displacement of its incoming moves.

        Raises ValueError when a state of layer t > 0 has no incoming move or
        incoming moves of different displacements (not a DAG of car states).
        """
        out = [(np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))]
        for t in range(len(self.edges)):
            _, dst = self.edges[t]
            dx, dy = self.displacement(t)
            n = len(self.xs[t + 1])
            vx = np.zeros(n, dtype=np.int64)
            vy = np.zeros(n, dtype=np.int64)
            vx[dst], vy[dst] = dx, dy
            seen = np.zeros(n, dtype=bool)
            seen[dst] = True
            if not seen.all():
                i = int(np.nonzero(~seen)[0][0])
                raise ValueError(f"DAG state {i} of layer {t + 1} has no incoming move")
            bad = (vx[dst] != dx) | (vy[dst] != dy)
            if bad.any():
                i = int(dst[np.nonzero(bad)[0][0]])
                raise ValueError(f"DAG state {i} of layer {t + 1}: incoming moves of "
                                 "different velocities")
            out.append((vx, vy))
        return out
