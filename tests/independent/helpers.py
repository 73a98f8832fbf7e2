"""Test-only helpers for the independent side: bridges to the oracle and brute-force truth.

Tests may import both sides; racecert/independent never imports the oracle.
The brute force (`tests/bruteforce.py`: its own geometry, plain enumeration)
with the project's radical arithmetic (`racecert.model.radicals.RadicalSum`)
is the independent truth for green, blue and yellow on tiny tracks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from racecert.analysis.pipeline import Analysis, analyze
from racecert.independent.dag import LayeredDag
from racecert.model.parse import load_track
from racecert.model.radicals import RadicalSum
from tests.bruteforce import WorkCapExceeded, _Moves, initial_state

TRACKS = Path(__file__).resolve().parent.parent.parent / "tracks"
BUNDLED = sorted(TRACKS.glob("*.toml")) + sorted(TRACKS.glob("limits/*.toml"))


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


@cache
def analysis_of(path: Path) -> Analysis:
    """The analysis (exact mode) of a bundled track, computed once per test session."""
    return analyze(load_track(path))


def rank(accel: tuple[int, int]) -> int:
    """The report's acceleration rank: ay first, then ax, each -1, 0, 1."""
    return (accel[1] + 1) * 3 + (accel[0] + 1)


@dataclass(frozen=True)
class BruteExtreme:
    """An extreme length over enumerated trajectories, its ties and lex-smallest accelerations."""

    length: RadicalSum
    ties: int
    accelerations: tuple[tuple[int, int], ...]


def _trajectories(track, depth: int, max_nodes: int
                  ) -> Iterator[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]:
    """(accelerations, velocities) of every trajectory whose first arrival is move `depth`."""
    moves = _Moves(track)
    nodes = [0]

    def walk(state, t, accs, vels):
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise WorkCapExceeded(f"more than {max_nodes} nodes")
        for o in moves.after(state, t):
            v = o.state[2], o.state[3]
            a = (v[0] - state[2], v[1] - state[3])
            if o.arrives:
                if t + 1 == depth:
                    yield accs + (a,), vels + (v,)
                continue
            if t + 1 < depth:
                yield from walk(o.state, t + 1, accs + (a,), vels + (v,))

    yield from walk(initial_state(track), 0, (), ())


def _length(vels) -> RadicalSum:
    total = RadicalSum.zero()
    for vx, vy in vels:
        total = total + RadicalSum.of_vector(vx, vy)
    return total


def brute_extremes(track, m_star: int, max_nodes: int = 200_000
                   ) -> tuple[BruteExtreme, BruteExtreme]:
    """Green and blue by enumerating every optimal trajectory (raises WorkCapExceeded)."""
    found = [(_length(v), tuple(rank(x) for x in a), a)
             for a, v in _trajectories(track, m_star, max_nodes)]
    out = []
    for pick in (min, max):
        best = pick(f[0] for f in found)
        tied = [f for f in found if f[0] == best]
        out.append(BruteExtreme(best, len(tied), min(tied, key=lambda f: f[1])[2]))
    return out[0], out[1]


def brute_yellow(track, depth_cap: int, max_nodes: int = 200_000
                 ) -> tuple[RadicalSum, int, tuple[tuple[int, int], ...]] | None:
    """Least length, then fewest moves, then lex-smallest accelerations, by enumeration.

    A trajectory of d moves is at least d long, so depths beyond the best length
    found cannot improve it. None if nothing arrives within `depth_cap` moves;
    raises WorkCapExceeded when the best length exceeds the cap or over work.
    """
    best = None
    for depth in range(1, depth_cap + 1):
        if best is not None and depth > best[0].to_float() + 1e-9:
            return best
        for a, v in _trajectories(track, depth, max_nodes):
            cand = (_length(v), depth, a)
            key = (cand[1], tuple(rank(x) for x in a))
            if best is None or cand[0] < best[0] or (
                    cand[0] == best[0] and key < (best[1], tuple(rank(x) for x in best[2]))):
                best = cand
    if best is not None:
        raise WorkCapExceeded("best length beyond the depth cap")
    return None
