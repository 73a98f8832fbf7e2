"""Test-only bridge: the oracle's `OptimalDag` as the independent side's `LayeredDag`.

Tests may import both sides; racecert/independent never imports the oracle.
"""

from __future__ import annotations

import numpy as np

from racecert.independent.dag import LayeredDag


def layered_from_oracle(dag) -> LayeredDag:
    """Positions, moves and arrivals of an oracle `OptimalDag`."""
    return LayeredDag(
        xs=tuple(np.asarray(layer.x, dtype=np.int64) for layer in dag.layers),
        ys=tuple(np.asarray(layer.y, dtype=np.int64) for layer in dag.layers),
        edges=tuple((np.asarray(s, dtype=np.int64), np.asarray(d, dtype=np.int64))
                    for s, d in dag.edges),
        arrive_src=np.asarray(dag.arrive_src, dtype=np.int64),
        arrive_final=np.asarray(dag.arrive_final, dtype=np.int64),
        arrive_x=np.asarray(dag.arrive_state.x, dtype=np.int64),
        arrive_y=np.asarray(dag.arrive_state.y, dtype=np.int64),
    )
