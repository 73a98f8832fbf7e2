"""The backward pass's candidate sources (`oracle.backward`) against a direct enumeration
of every predecessor key (p = q - v', u = v' - a, any layer and progress, the phase within
one), on random keys of small grids, with and without the phase in the key."""

from __future__ import annotations

import numpy as np
import pytest

from racecert.model.rules import ACCELERATIONS, StateArrays
from racecert.model.states import StateCodec
from racecert.oracle.backward import candidate_sources


def _random_keys(rng: np.random.Generator, codec: StateCodec, k: int, n: int) -> np.ndarray:
    w, h = codec.width, codec.height
    s = StateArrays(*(np.asarray(c, dtype=np.int32) for c in (
        rng.integers(0, w, n), rng.integers(0, h, n),
        rng.integers(-min(w - 1, 3), min(w - 1, 3) + 1, n),
        rng.integers(-min(h - 1, 3), min(h - 1, 3) + 1, n),
        rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, k + 1, n))))
    return np.unique(codec.encode(s))


def _expected(layer: np.ndarray, dst: np.ndarray, codec: StateCodec, k: int) -> list[int]:
    w, h = codec.width, codec.height
    s = codec.decode(dst)
    want: set[int] = set()
    for i in range(len(dst)):
        px, py = int(s.x[i] - s.vx[i]), int(s.y[i] - s.vy[i])
        if not (0 <= px < w and 0 <= py < h):
            continue
        f = int(s.phase[i])
        phases = {min(max(f + d, 0), k) for d in (-1, 0, 1)} if codec.keep_phase else {0}
        for ax, ay in ACCELERATIONS:
            ux, uy = int(s.vx[i]) - ax, int(s.vy[i]) - ay
            if abs(ux) > w - 1 or abs(uy) > h - 1:
                continue
            for lay in (0, 1):
                for prog in (0, 1):
                    for ph in phases:
                        cand = StateArrays(*(np.array([v], dtype=np.int32) for v in (
                            px, py, ux, uy, lay, prog, ph)))
                        want.add(int(codec.encode(cand)[0]))
    return [i for i, key in enumerate(layer.tolist()) if key in want]


@pytest.mark.parametrize("seed", range(12))
def test_matches_every_predecessor(seed: int) -> None:
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    k = int(rng.integers(0, 4))
    codec = StateCodec(w, h, k + 1, keep_phase=bool(seed % 2))
    layer = _random_keys(rng, codec, k, 400)
    dst = _random_keys(rng, codec, k, 60)
    got = candidate_sources(layer, dst, codec, k, ACCELERATIONS)
    assert got.tolist() == _expected(layer, dst, codec, k)


def test_the_largest_opening_phase() -> None:
    """An opening of 2^31 - 2 moves (the phase digit's range) costs nothing extra: the
    sources' phases are derived per target, not tabulated for every phase."""
    rng = np.random.default_rng(99)
    k = 2**31 - 2
    codec = StateCodec(5, 4, k + 1, keep_phase=True)
    layer = _random_keys(rng, codec, 3, 400)
    dst = _random_keys(rng, codec, 3, 60)
    got = candidate_sources(layer, dst, codec, k, ACCELERATIONS)
    assert got.tolist() == _expected(layer, dst, codec, k)
