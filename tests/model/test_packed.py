"""`PackedStates` reads exactly like the `StateArrays` it packs (racecert.model.packed)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from racecert.model import packed
from racecert.model.packed import IndexedStates, PackedStates, narrowest
from racecert.model.rules import StateArrays

_INT32 = st.integers(-2**31, 2**31 - 1)
# values at and around every type's bounds, and anything else of 32 bits
_VALUE = st.one_of(st.sampled_from([-2**31, -32769, -32768, -129, -128, -1, 0, 1, 127, 128,
                                    32767, 32768, 2**31 - 1]), _INT32)


def _states(rows: list[list[int]]) -> StateArrays:
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    return StateArrays(*(np.array(c, dtype=np.int32) for c in cols))


_ROWS = st.lists(st.lists(_VALUE, min_size=7, max_size=7), max_size=12)


def test_packed_doctest() -> None:
    failures, tries = doctest.testmod(packed)
    assert tries > 0 and failures == 0


@given(_ROWS, _ROWS)
def test_every_read_gives_the_packed_values_as_int32(a: list[list[int]],
                                                     b: list[list[int]]) -> None:
    """Rows, gathered rows, slices, masks, whole columns and a concatenation of parts packed
    apart (each column as narrow as its own part allows) all read back the same int32
    values; no column is wider than it needs."""
    s = _states(a + b)
    p = PackedStates.concat([PackedStates.pack(_states(a)), PackedStates.pack(_states(b))])
    assert len(p) == len(s)
    for col, packed_col in zip(s.fields(), p.columns, strict=True):
        assert narrowest(col).dtype.itemsize <= packed_col.dtype.itemsize
    for got in (p.fields(), p.unpack().fields(), (p.x, p.y, p.vx, p.vy, p.layer, p.progress,
                                                   p.phase)):
        assert all(g.dtype == np.int32 for g in got)
        assert [g.tolist() for g in got] == [c.tolist() for c in s.fields()]
    assert [p.state(i) for i in range(len(s))] == [s.state(i) for i in range(len(s))]
    idx = np.arange(len(s))[::-1].copy()
    mask = np.arange(len(s)) % 2 == 0
    for sel in (idx, mask, slice(1, None)):
        got, want = p.take(sel), s.take(sel)
        assert all(g.dtype == np.int32 for g in got.fields())
        assert [g.tolist() for g in got.fields()] == [c.tolist() for c in want.fields()]
        _same_pairs(p, s, want, sel)


def _same_pairs(got: PackedStates | IndexedStates | StateArrays, s: StateArrays,
                want: StateArrays, sel: np.ndarray | slice) -> None:
    """`positions` and `velocities` of `got` and `s` at `sel` are `want`'s columns."""
    for a, b in ((got.positions(sel), s.positions(sel)), (got.velocities(sel),
                                                          s.velocities(sel))):
        assert all(c.dtype == np.int32 for c in a)
        assert [c.tolist() for c in a] == [c.tolist() for c in b]
    assert [c.tolist() for c in got.positions(sel)] == [want.x.tolist(), want.y.tolist()]
    assert [c.tolist() for c in got.velocities(sel)] == [want.vx.tolist(), want.vy.tolist()]


def test_a_packed_read_cannot_overflow() -> None:
    """A column packed as int8 reads back as int32, so arithmetic on it stays exact."""
    p = PackedStates.pack(_states([[100, 120, -128, 127, 0, 1, 2]]))
    assert p.columns[0].dtype == np.int8
    assert int((p.x * p.y)[0]) == 12000 and int((p.vx * p.vx + p.vy * p.vy)[0]) == 32513


def test_narrowest_refuses_what_32_bits_cannot_hold() -> None:
    assert narrowest(np.array([], dtype=np.int64)).dtype == np.int8
    with pytest.raises(OverflowError, match="do not fit 32 bits"):
        narrowest(np.array([2**31], dtype=np.int64))


@given(st.lists(st.lists(_VALUE, min_size=7, max_size=7), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.integers(-128, 127), st.integers(-128, 127)),
                max_size=12))
def test_indexed_states_read_like_the_rows_they_index(table_rows: list[list[int]],
                                                      picks: list[tuple[int, int, int]]
                                                      ) -> None:
    """Row i of `IndexedStates` is table row index[i] with its own progress and phase, by
    every read: rows, gathered rows, masks, slices and whole columns (int32)."""
    table = _states(table_rows)
    picks = [(j % len(table_rows), p, f) for j, p, f in picks]
    want = _states([[*table_rows[j][:5], p, f] for j, p, f in picks])
    got = IndexedStates(table, np.array([j for j, _, _ in picks], dtype=np.int32),
                        np.array([p for _, p, _ in picks], dtype=np.int8),
                        np.array([f for _, _, f in picks], dtype=np.int8))
    assert len(got) == len(want)
    for cols in (got.fields(), (got.x, got.y, got.vx, got.vy, got.layer, got.progress,
                                got.phase)):
        assert all(c.dtype == np.int32 for c in cols)
        assert [c.tolist() for c in cols] == [c.tolist() for c in want.fields()]
    assert [got.state(i) for i in range(len(got))] == [want.state(i) for i in range(len(want))]
    for sel in (np.arange(len(want))[::-1].copy(), np.arange(len(want)) % 3 == 1,
                slice(2, None)):
        assert ([c.tolist() for c in got.take(sel).fields()]
                == [c.tolist() for c in want.take(sel).fields()])
        _same_pairs(got, want, want.take(sel), sel)
