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

`explore(track, mode, max_states=..., max_depth=None) -> SearchResult` runs the
search; `SearchResult.status` is "arrived", "unreachable", "depth" (no arrival
within ``max_depth`` moves) or "budget" (more than ``max_states`` states would have
been stored; ``message`` says where). The budget is in states, so a result does
not depend on the machine.

>>> # r = explore(load_track("tracks/tiny_straight.toml")); r.m_star, r.optimal_count
>>> # (3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Mode = Literal["exact", "editor"]
Status = Literal["arrived", "unreachable", "depth", "budget"]
DEFAULT_MAX_STATES = 50_000_000
"""The default state budget: ~50 million stored states (a few GB at most)."""


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
