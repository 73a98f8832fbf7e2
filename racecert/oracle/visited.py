"""The BFS's visited set: sparse tiled bitmaps over state keys, compiled with numba.

A state key (`model.states.StateCodec`) is `block * cells + cell`, where `cell = y * w + x`
and `block` packs the velocity, layer, progress and phase. The set keeps one bit per
key, but only for the 512-cell tiles of a block that a search has touched:

- `blocks`: an open-addressing table from a block number to its row (few blocks: one
  per velocity, layer, progress and phase reached);
- `rows[row, tile]`: the index of that tile's bitmap in `tiles`, -1 while untouched;
- `tiles[i]`: 512 bits (eight 64-bit words, one cache line); `base[i]` is the key of
  its first bit.

So the memory is about one bit per key of every touched tile plus 4 bytes per tile of
every reached block, instead of a sorted array of 8-byte keys copied once per layer
(quadratic in the number of layers on long tracks). Successors of neighbouring states
land in neighbouring tiles, so the accesses stay in cache. The compiled kernel stops
when a table is full; `VisitedSet.add` grows that table and resumes where it stopped, so
no capacity has to be guessed in advance.

The keys added since the last `take_fresh` (a BFS layer's new states) are also marked in
a second, small bitmap of the tiles they touched (`fresh`); `take_fresh` reads them back
tile by tile in key order, so a layer comes out sorted without sorting its keys (only its
touched tiles are put in order, hundreds of keys fewer).

>>> import numpy as np
>>> v = VisitedSet(cells=6)
>>> v.add(np.array([7, 3, 7, 40, 3], dtype=np.int64))
3
>>> v.take_fresh().tolist()
[3, 7, 40]
>>> v.add(np.array([3, 8], dtype=np.int64)), v.take_fresh().tolist()
(1, [8])
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

TILE_SHIFT = 9  # 512 cells per tile
_WORDS = 1 << (TILE_SHIFT - 6)  # 64-bit words per tile
_NEED_BLOCKS, _NEED_ROWS, _NEED_TILES, _NEED_FRESH = 1, 2, 3, 4


@njit(cache=True, nogil=True, inline="always")
def _slot(bkeys, block):
    """The slot of `block` in the block table, or the empty slot where it would go."""
    mask = len(bkeys) - 1
    h = block & mask
    while bkeys[h] != -1 and bkeys[h] != block:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True)
def _add(keys, start, cells, bkeys, bvals, used, rows, tiles, base, fresh_of, fresh,
         fresh_tile):
    """Mark `keys[start:]` visited, and the ones not seen before fresh.

    Returns (the next key to do, keys newly added, 0 when done or which table is full).
    `used` holds (blocks used, tiles used, fresh tiles used) and is updated in place.
    """
    n_new = 0
    for i in range(start, len(keys)):
        key = keys[i]
        block = key // cells
        cell = key - block * cells
        h = _slot(bkeys, block)
        if bkeys[h] == block:
            row = bvals[h]
        else:
            if 2 * (used[0] + 1) > len(bkeys):
                return i, n_new, _NEED_BLOCKS
            if used[0] >= rows.shape[0]:
                return i, n_new, _NEED_ROWS
            row = used[0]
            bkeys[h] = block
            bvals[h] = row
            used[0] += 1
        t = cell >> TILE_SHIFT
        tile = rows[row, t]
        if tile < 0:
            if used[1] >= tiles.shape[0]:
                return i, n_new, _NEED_TILES
            tile = used[1]
            rows[row, t] = tile
            base[tile] = key - (cell & ((1 << TILE_SHIFT) - 1))
            used[1] += 1
        word = (cell >> 6) & (_WORDS - 1)
        bit = np.uint64(1) << np.uint64(cell & 63)
        w = tiles[tile, word]
        if (w & bit) == 0:
            f = fresh_of[tile]
            if f < 0:
                if used[2] >= fresh.shape[0]:
                    return i, n_new, _NEED_FRESH
                f = used[2]
                fresh_of[tile] = f
                fresh_tile[f] = tile
                used[2] += 1
            tiles[tile, word] = w | bit
            fresh[f, word] |= bit
            n_new += 1
    return len(keys), n_new, 0


@njit(cache=True, nogil=True)
def _take_fresh(order, fresh_tile, fresh, base, fresh_of, out):
    """Write the fresh keys to `out`, tile by tile in `order` (of the fresh tiles' keys),
    each tile's bits in order; clear the fresh marks. Returns how many."""
    n = 0
    for f in order:
        tile = fresh_tile[f]
        b0 = base[tile]
        for word in range(_WORDS):
            w = fresh[f, word]
            while w != 0:
                out[n] = b0 + word * 64 + trailing_zeros(w)
                n += 1
                w &= w - np.uint64(1)
            fresh[f, word] = 0
        fresh_of[tile] = -1
    return n


@njit(cache=True, nogil=True)
def _rehash(bkeys, bvals, size):
    """The block table rebuilt with `size` slots (a power of two)."""
    nk = np.full(size, -1, dtype=np.int64)
    nv = np.zeros(size, dtype=np.int32)
    mask = size - 1
    for i in range(len(bkeys)):
        b = bkeys[i]
        if b != -1:
            h = b & mask
            while nk[h] != -1:
                h = (h + 1) & mask
            nk[h] = b
            nv[h] = bvals[i]
    return nk, nv


class VisitedSet:
    """A set of non-negative int64 state keys of a track with `cells` = width x height cells.

    `add` is the BFS's forward step (membership and insertion in one pass) and
    `take_fresh` hands over the keys new since its last call, sorted: the next layer.
    """

    def __init__(self, cells: int) -> None:
        self.cells = int(cells)
        tiles_per_block = (self.cells + (1 << TILE_SHIFT) - 1) >> TILE_SHIFT
        self._bkeys = np.full(64, -1, dtype=np.int64)
        self._bvals = np.zeros(64, dtype=np.int32)
        self._rows = np.full((16, tiles_per_block), -1, dtype=np.int32)
        self._tiles = np.zeros((256, _WORDS), dtype=np.uint64)
        self._base = np.zeros(256, dtype=np.int64)  # per tile: the key of its first bit
        self._fresh_of = np.full(256, -1, dtype=np.int32)  # per tile: its fresh row or -1
        self._fresh = np.zeros((64, _WORDS), dtype=np.uint64)  # the fresh bits
        self._fresh_tile = np.zeros(64, dtype=np.int32)  # per fresh row: its tile
        self._used = np.zeros(3, dtype=np.int64)  # blocks, tiles, fresh rows
        self._n_fresh = 0

    @property
    def nbytes(self) -> int:
        """Bytes held by the tables (for memory accounting)."""
        return sum(a.nbytes for a in (self._bkeys, self._bvals, self._rows, self._tiles,
                                      self._base, self._fresh_of, self._fresh,
                                      self._fresh_tile))

    def add(self, keys: np.ndarray) -> int:
        """Add `keys` (int64, >= 0); the ones not in the set before become fresh. Returns
        how many were new."""
        start, total = 0, 0
        while True:
            start, n_new, need = _add(keys, start, self.cells, self._bkeys, self._bvals,
                                      self._used, self._rows, self._tiles, self._base,
                                      self._fresh_of, self._fresh, self._fresh_tile)
            total += n_new
            if need == 0:
                self._n_fresh += total
                return total
            if need == _NEED_BLOCKS:
                self._bkeys, self._bvals = _rehash(self._bkeys, self._bvals,
                                                   2 * len(self._bkeys))
            elif need == _NEED_ROWS:
                self._rows = _grown(self._rows, -1)
            elif need == _NEED_TILES:
                self._tiles = _grown(self._tiles, 0)
                self._base = _grown(self._base, 0)
                self._fresh_of = _grown(self._fresh_of, -1)
            else:
                self._fresh = _grown(self._fresh, 0)
                self._fresh_tile = _grown(self._fresh_tile, 0)

    def take_fresh(self) -> np.ndarray:
        """The keys added since the last call (new to the set then), sorted; they stay in
        the set but are no longer fresh."""
        m = int(self._used[2])
        order = np.argsort(self._base[self._fresh_tile[:m]])
        out = np.empty(self._n_fresh, dtype=np.int64)
        _take_fresh(order, self._fresh_tile, self._fresh, self._base, self._fresh_of, out)
        self._used[2] = 0
        self._n_fresh = 0
        return out


def _grown(table: np.ndarray, fill: int) -> np.ndarray:
    """`table` with twice as many rows, the new ones set to `fill`."""
    new = np.full((2 * table.shape[0], *table.shape[1:]), fill, dtype=table.dtype)
    new[: table.shape[0]] = table
    return new
