"""Many states held in little memory: `PackedStates` and `IndexedStates`, read like
`StateArrays`.

A large open area's optimal DAG has tens of millions of arriving moves, and
`StateArrays` spends seven int32 columns (28 bytes) on each of their states. Their values
are small (positions within the grid, velocities within its span, a layer, a progress
flag and an opening phase), so `PackedStates` keeps every column in the narrowest signed
integer type that holds all of its values (chosen from the data: at most 9 bytes a state
on a grid under 32,768 cells a side).

Nothing outside this class ever sees a narrow column, so no arithmetic can overflow in
one: every read gives int32, as `StateArrays` does. `state(i)` reads one row and `take`
gathers rows (both cost what they return), as do `positions` and `velocities` for two
columns; the column properties (`x`, `vx`, ...) and `fields()` widen a whole column on
each call, so a caller that needs a few rows asks for them instead. `IndexedStates`
goes further where the states repeat a few distinct rows (the final states of the
arriving moves): an index into a table of them.

>>> from racecert.model.rules import StateArrays
>>> s = StateArrays(*(np.array(c, dtype=np.int32) for c in
...                   ([5, 300], [1, 2], [-3, 4], [0, 0], [0, 1], [1, 0], [2, 2])))
>>> p = PackedStates.pack(s)
>>> [str(c.dtype) for c in p.columns], p.nbytes
(['int16', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8'], 16)
>>> p.state(1), p.take(np.array([1])).x.tolist(), p.x.dtype
(CarState(x=300, y=2, vx=4, vy=0, layer=1, progress=0, phase=2), [300], dtype('int32'))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from racecert.model.rules import CarState, StateArrays

_NARROW = (np.int8, np.int16, np.int32)


def narrowest(column: np.ndarray) -> np.ndarray:
    """`column` in the narrowest of int8, int16 and int32 that holds all of its values.

    >>> narrowest(np.array([-128, 127], dtype=np.int32)).dtype, narrowest(np.array([128])).dtype
    (dtype('int8'), dtype('int16'))
    """
    lo, hi = (int(column.min()), int(column.max())) if len(column) else (0, 0)
    for t in _NARROW:
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return column.astype(t, copy=False)
    raise OverflowError(f"state values {lo}..{hi} do not fit 32 bits")


def _widened(k: int, doc: str) -> property:
    """Column k of every row, as int32 (`_StateRows`)."""
    return property(lambda self: self._column(k, slice(None)), doc=doc)


class _StateRows(ABC):
    """What `PackedStates` and `IndexedStates` share: every read of `StateArrays`, built
    on `_column(k, idx)` (column k, in `StateArrays.fields()` order, at the rows `idx`, as
    int32) and `__len__`, which each defines."""

    @abstractmethod
    def _column(self, k: int, idx: np.ndarray | slice | int) -> np.ndarray:
        """Column k at the rows `idx`, as int32."""

    @abstractmethod
    def __len__(self) -> int:
        """The number of rows."""

    def state(self, i: int) -> CarState:
        """Row i as a `CarState`."""
        return CarState(*(int(self._column(k, i)) for k in range(7)))

    def take(self, idx: np.ndarray | slice) -> StateArrays:
        """The rows at `idx` (indices, a boolean mask or a slice), as int32 `StateArrays`."""
        return StateArrays(*(self._column(k, idx) for k in range(7)))

    def unpack(self) -> StateArrays:
        """Every row as int32 `StateArrays` (28 bytes a state)."""
        return self.take(slice(None))

    def fields(self) -> tuple[np.ndarray, ...]:
        """The seven columns, each as int32."""
        return self.unpack().fields()

    def positions(self, idx: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """x and y of the rows at `idx`, as int32."""
        return self._column(0, idx), self._column(1, idx)

    def velocities(self, idx: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """vx and vy of the rows at `idx`, as int32."""
        return self._column(2, idx), self._column(3, idx)

    x = _widened(0, "x of every row (int32, gathered on each read).")
    y = _widened(1, "y of every row.")
    vx = _widened(2, "vx of every row.")
    vy = _widened(3, "vy of every row.")
    layer = _widened(4, "The layer of every row.")
    progress = _widened(5, "The progress of every row.")
    phase = _widened(6, "The opening phase of every row.")


@dataclass(frozen=True)
class PackedStates(_StateRows):
    """States as seven narrow integer columns (module docstring), in the order of
    `StateArrays.fields()`; every read widens to int32."""

    columns: tuple[np.ndarray, ...]

    @staticmethod
    def pack(states: StateArrays) -> PackedStates:
        """`states` with each column narrowed (`narrowest`)."""
        return PackedStates(tuple(narrowest(c) for c in states.fields()))

    @staticmethod
    def concat(parts: Sequence[PackedStates]) -> PackedStates:
        """The parts one after another (each column as wide as its widest part's)."""
        if not parts:
            return PackedStates.pack(StateArrays.of([]))
        return PackedStates(tuple(np.concatenate(cols) for cols in zip(
            *(p.columns for p in parts), strict=True)))

    def __len__(self) -> int:
        return len(self.columns[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns."""
        return sum(c.nbytes for c in self.columns)

    def _column(self, k: int, idx: np.ndarray | slice | int) -> np.ndarray:
        return self.columns[k][idx].astype(np.int32)


@dataclass(frozen=True)
class IndexedStates(_StateRows):
    """States that repeat a few distinct rows: row i is `table` row `index[i]` with its
    own `progress[i]` and `phase[i]`; read like `StateArrays` (int32 everywhere).

    The optimal DAG's arriving moves end in far fewer distinct final states (x, y, vx, vy,
    layer) than there are moves, so this holds them in 6 bytes or less each (an int32
    index and two narrow columns) instead of `PackedStates`' 9 or `StateArrays`' 28.

    >>> from racecert.model.rules import StateArrays
    >>> table = StateArrays(*(np.array(c, dtype=np.int32) for c in
    ...                       ([5, 7], [1, 2], [3, 0], [0, 1], [0, 0], [0, 0], [2, 2])))
    >>> s = IndexedStates(table, np.array([1, 0, 1], dtype=np.int32),
    ...                   np.array([0, 1, 1], dtype=np.int8), np.array([2, 2, 2], dtype=np.int8))
    >>> s.state(2), s.take(np.array([0, 1])).x.tolist(), s.progress.tolist(), len(s)
    (CarState(x=7, y=2, vx=0, vy=1, layer=0, progress=1, phase=2), [7, 5], [0, 1, 1], 3)
    """

    table: StateArrays
    index: np.ndarray
    own_progress: np.ndarray
    own_phase: np.ndarray

    def __len__(self) -> int:
        return len(self.index)

    @property
    def nbytes(self) -> int:
        """Bytes held per row (the table not counted)."""
        return self.index.nbytes + self.own_progress.nbytes + self.own_phase.nbytes

    def _column(self, k: int, idx: np.ndarray | slice | int) -> np.ndarray:
        if k == 5:
            return self.own_progress[idx].astype(np.int32)
        if k == 6:
            return self.own_phase[idx].astype(np.int32)
        return self.table.fields()[k][self.index[idx]]
