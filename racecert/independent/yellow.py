"""Yellow, independently: the arriving trajectory of least total Euclidean length.

No move-count optimality: over every trajectory from the configured car at
rest that arrives (docs/rules.md), the least Σ sqrt(vx² + vy²); among the
trajectories of exactly that length the fewest moves; among those the
lexicographically smallest sequence of accelerations, each ranked
(ay + 1) * 3 + (ax + 1) (docs/report.md, yellow in ``exact`` selection).

The search is a Dijkstra on states (x, y, vx, vy, layer, progress, phase),
phase = min(moves made, K), with labels (exact length, moves) ordered
lexicographically:

- **exact labels**: a state's length is an integer row over square roots
  (`radical_forms`), so equal lengths are equal rows; a float value with a
  rigorous error bound travels with it. Candidates for a state are filtered by
  the floats; several kept candidates are compared as rows (equal rows: the
  fewer moves win), and different kept rows by the float filter on their
  difference or by sympy.
- **batches**: every move is at least 1 long, so all open states whose label is
  below (smallest open lower bound) + 1 are final at once; each batch is
  expanded by one call of the successor function (`classify`, a parameter:
  the verify geometry or the independent fast geometry).
- **bound** (optional, sound): with an `upper_bound` U on the least length (any
  arriving trajectory's length, e.g. the independent green), a move whose
  prefix length plus the straight-line distance from its end to the finish
  line, + 1/2, exceeds U cannot be on a trajectory of length <= U and is
  dropped. Arrivals found lower U as the search goes.
- **stop**: once the smallest open lower bound + 1 exceeds the best arrival's
  upper bound, no arrival of equal or smaller length remains.
- **representative**: the moves that are tight for the final labels (exactly
  equal length and one more move) form a DAG; the states that reach a best
  arrival along it are marked, and the smallest acceleration is taken from the
  start on.

Work is bounded by `max_states` stored states (`SearchBudget` when exceeded),
never by time. The module imports nothing from the oracle or the analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from racecert.independent.race_rules import RANKED_ACCELS
from racecert.independent.radical_forms import (
    RadicalLength,
    Radicands,
    SignStats,
    float_bound,
    sign_of,
    sign_of_difference,
)
from racecert.independent.successors import Classify
from racecert.independent.unique import distinct_sorted
from racecert.model.track import Track

UNIT_ROUNDOFF = 2.0**-53
DEFAULT_MAX_STATES = 20_000_000
ACCELERATION_OF_RANK = RANKED_ACCELS


class SearchBudget(RuntimeError):
    """The search would store more states than its budget allows (one-line message)."""


@dataclass(frozen=True)
class YellowTrajectory:
    """The least-length arriving trajectory (or `reachable=False`), and the work done."""

    reachable: bool
    length: RadicalLength | None
    moves: int | None
    positions: tuple[tuple[int, int], ...]
    accelerations: tuple[tuple[int, int], ...]
    states_stored: int
    states_settled: int
    decided_by_float: int
    decided_by_sympy: int


def finish_lower_bound(track: Track, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A float lower bound on the length still needed to arrive from each position.

    An arriving move crosses the finish segment F at some point c and ends at a
    cell centre q at least 1/2 beyond F's line; so the rest of a trajectory is at
    least dist(p, F) + 1/2. In doubled coordinates the squared distance is an
    integer, its float sqrt is correctly rounded, and the factor 1 - 2^-40 keeps
    the result below the exact value.
    """
    f = track.finish
    across, along = (x, y) if f.axis == "x" else (y, x)
    d_across = np.abs(2 * f.k + 1 - 2 * across.astype(np.int64))
    d_along = np.maximum(np.maximum((2 * f.lo - 1) - 2 * along.astype(np.int64),
                                    2 * along.astype(np.int64) - (2 * f.hi + 1)), 0)
    dist2 = (d_across * d_across + d_along * d_along).astype(np.float64)
    return (0.5 * np.sqrt(dist2) + 0.5) * (1.0 - 2.0**-40)


class _Store:
    """Per-state arrays indexed by a dense id, and the state -> id dictionary."""

    FIELDS = ("x", "y", "vx", "vy", "layer", "progress", "phase")

    def __init__(self, max_states: int, track: Track, phases: int) -> None:
        self.max_states = max_states
        self.w, self.h, self.phases = track.width, track.height, phases
        if 2 * self.w * (2 * self.h + 1) * 4 * phases * self.h * self.w >= 2**62:
            raise ValueError(f"a {self.w}x{self.h} grid does not fit the yellow search's key")
        self.ids: dict[int, int] = {}
        self.n = 0
        cap = 1024
        self.cols = {f: np.zeros(cap, dtype=np.int64) for f in self.FIELDS}
        self.dist = np.full(cap, np.inf)
        self.err = np.zeros(cap)
        self.moves = np.zeros(cap, dtype=np.int64)
        self.settled = np.zeros(cap, dtype=bool)
        self.rows = np.zeros((cap, 1), dtype=np.int32)  # capacity; `width` columns in use
        self.width = 1

    def keys(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
             layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> np.ndarray:
        """This search's own mixed-radix key of each state (|v| < grid size per axis)."""
        k = (vx + self.w) * (2 * self.h + 1) + (vy + self.h)
        k = ((k * 2 + layer) * 2 + progress) * self.phases + phase
        return (k * self.h + y) * self.w + x

    def _grow(self, size: int, width: int) -> None:
        cap = len(self.dist)
        if size > cap:
            while cap < size:
                cap *= 2
            extra = cap - len(self.dist)
            for f in self.FIELDS:
                self.cols[f] = np.concatenate((self.cols[f], np.zeros(extra, dtype=np.int64)))
            self.dist = np.concatenate((self.dist, np.full(extra, np.inf)))
            self.err = np.concatenate((self.err, np.zeros(extra)))
            self.moves = np.concatenate((self.moves, np.zeros(extra, dtype=np.int64)))
            self.settled = np.concatenate((self.settled, np.zeros(extra, dtype=bool)))
            self.rows = np.concatenate(
                (self.rows, np.zeros((extra, self.rows.shape[1]), dtype=np.int32)))
        if width > self.rows.shape[1]:  # columns double too: one new radicand at a time
            cols = max(width, 2 * self.rows.shape[1])  # would copy every row each time
            pad = np.zeros((len(self.rows), cols - self.rows.shape[1]), dtype=np.int32)
            self.rows = np.concatenate((self.rows, pad), axis=1)
        self.width = max(self.width, width)

    def widen(self, width: int) -> None:
        self._grow(self.n, width)

    def row_of(self, ids: np.ndarray) -> np.ndarray:
        """The coefficient rows of states `ids` over the columns in use, as int64."""
        return self.rows[ids, : self.width].astype(np.int64)

    def lookup(self, states: tuple[np.ndarray, ...]) -> np.ndarray:
        """Dense ids of the given states (new ones are stored, unlabelled)."""
        uniq, first, inverse = np.unique(self.keys(*states), return_index=True,
                                         return_inverse=True)
        ids = self.ids
        out = np.fromiter((ids.get(k, -1) for k in uniq.tolist()), dtype=np.int64,
                          count=len(uniq))
        new = np.nonzero(out < 0)[0]
        if len(new):
            if self.n + len(new) > self.max_states:
                raise SearchBudget(f"yellow search: more than {self.max_states} states "
                                   "(raise max_states)")
            out[new] = np.arange(self.n, self.n + len(new))
            self._grow(self.n + len(new), self.width)
            rows = first[new]
            for f, s in zip(self.FIELDS, states, strict=True):
                self.cols[f][out[new]] = s[rows]
            ids.update(zip(uniq[new].tolist(), out[new].tolist(), strict=True))
            self.n += len(new)
        return out[inverse.reshape(-1)]


@dataclass
class _Candidates:
    """Moves competing for labels: source, target (or -1 for an arrival), move term, rank."""

    src: np.ndarray
    dst: np.ndarray
    col: np.ndarray
    k: np.ndarray
    acc: np.ndarray
    value: np.ndarray
    error: np.ndarray

    def take(self, idx: np.ndarray) -> _Candidates:
        return _Candidates(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))


def _concat(parts: list[_Candidates]) -> _Candidates:
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return _Candidates(z, z, z, z, z, np.zeros(0), np.zeros(0))
    return _Candidates(*(np.concatenate([getattr(p, f) for p in parts])
                         for f in _Candidates.__dataclass_fields__))


@dataclass
class _Search:
    track: Track
    classify: Classify
    max_states: int
    upper: float
    radicands: Radicands = field(default_factory=Radicands)
    stats: SignStats = field(default_factory=SignStats)
    tight: list[_Candidates] = field(default_factory=list)
    arrivals: list[_Candidates] = field(default_factory=list)
    settled_count: int = 0

    def __post_init__(self) -> None:
        op = self.track.opening
        self.k_phase = op.moves if op is not None else 0
        self.store = _Store(self.max_states, self.track, self.k_phase + 1)

    # -- candidates ------------------------------------------------------------

    def _move_terms(self, src: np.ndarray, vx: np.ndarray, vy: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        st = self.store
        col, k = self.radicands.split_many(vx, vy)
        st.widen(self.radicands.width)
        step = k * self.radicands.sqrt[col]
        value = st.dist[src] + step
        error = st.err[src] + 3.0 * UNIT_ROUNDOFF * (step + value)
        acc = (vy - st.cols["vy"][src] + 1) * 3 + (vx - st.cols["vx"][src] + 1)
        return col, k, acc, value, error

    def _candidate_rows(self, c: _Candidates) -> np.ndarray:
        rows = self.store.row_of(c.src)
        rows[np.arange(len(c.src)), c.col] += c.k
        return rows

    # -- the loop ---------------------------------------------------------------

    def run(self) -> None:
        st = self.store
        car = self.track.car
        start = tuple(np.array([v], dtype=np.int64)
                      for v in (car.position[0], car.position[1], 0, 0, car.layer, 0, 0))
        sid = int(st.lookup(start)[0])
        st.dist[sid] = 0.0
        open_ids = np.array([sid], dtype=np.int64)
        while len(open_ids):
            lo = st.dist[open_ids] - st.err[open_ids]
            floor = float(lo.min())
            if floor + 1.0 > self.upper:
                break  # every arrival still possible is longer than the best one found
            pick = st.dist[open_ids] + st.err[open_ids] < floor + 1.0
            batch, open_ids = open_ids[pick], open_ids[~pick]
            st.settled[batch] = True
            self.settled_count += len(batch)
            fresh = self._expand(batch)
            open_ids = distinct_sorted(np.concatenate((open_ids, fresh[~st.settled[fresh]])))

    def _expand(self, batch: np.ndarray) -> np.ndarray:
        st = self.store
        c = st.cols
        moves = self.classify(*(c[f][batch] for f in _Store.FIELDS))
        ok = np.asarray(moves.code) == 0
        src = batch[np.asarray(moves.src)[ok]]
        vx, vy = np.asarray(moves.vx)[ok], np.asarray(moves.vy)[ok]
        arrives = np.asarray(moves.arrives)[ok]
        col, k, acc, value, error = self._move_terms(src, vx, vy)
        cand = _Candidates(src, np.full(len(src), -1, dtype=np.int64), col, k, acc, value, error)
        if arrives.any():
            arr = cand.take(arrives)
            self.arrivals.append(arr)
            self.upper = min(self.upper, float((arr.value + arr.error).min()))
        go = ~arrives
        new_state = (np.asarray(moves.x)[ok][go], np.asarray(moves.y)[ok][go], vx[go], vy[go],
                     np.asarray(moves.layer)[ok][go], np.asarray(moves.progress)[ok][go],
                     np.minimum(c["phase"][src[go]] + 1, self.k_phase))
        cand = cand.take(go)
        bound = finish_lower_bound(self.track, new_state[0], new_state[1])
        keep = cand.value - cand.error + bound <= self.upper
        cand = cand.take(keep)
        if not len(cand.src):
            return np.zeros(0, dtype=np.int64)
        cand.dst = st.lookup(tuple(s[keep] for s in new_state))
        live = ~st.settled[cand.dst]
        cand = cand.take(live)
        self._relax(cand)
        return distinct_sorted(cand.dst)

    # -- labels -------------------------------------------------------------------

    def _relax(self, c: _Candidates) -> None:
        """New labels (exact length, moves) of the targets; tight moves are recorded."""
        st = self.store
        targets, inv = np.unique(c.dst, return_inverse=True)
        m = len(targets)
        cur_v, cur_e = st.dist[targets], st.err[targets]
        has = np.isfinite(cur_v)
        reach = np.full(m, np.inf)
        np.minimum.at(reach, inv, c.value + c.error)
        reach = np.minimum(reach, np.where(has, cur_v + cur_e, np.inf))
        kept = c.value - c.error <= reach[inv]
        cur_kept = has & (cur_v - cur_e <= reach)
        n_kept = np.bincount(inv[kept], minlength=m) + cur_kept
        moves = st.moves[c.src] + 1
        single = kept & (n_kept[inv] == 1)
        self._assign(c.take(single), moves[single])
        multi_groups = np.nonzero(n_kept > 1)[0]
        if len(multi_groups):
            self._resolve(c.take(kept & (n_kept[inv] > 1)), targets, cur_kept)

    def _assign(self, c: _Candidates, moves: np.ndarray) -> None:
        """Targets take the (sole surviving) candidates' labels."""
        if not len(c.src):
            return
        st = self.store
        rows = self._candidate_rows(c)
        st.rows[c.dst, : rows.shape[1]] = rows
        st.dist[c.dst] = c.value
        st.err[c.dst] = c.error
        st.moves[c.dst] = moves
        self.tight.append(c)

    def _resolve(self, c: _Candidates, targets: np.ndarray, cur_kept: np.ndarray) -> None:
        """Targets with several kept competitors (current label and/or candidates), exactly.

        Competitors are the kept candidates plus the current label where it was
        kept. Where every competitor's row equals the row of the group's best
        float, the lengths are equal and the fewest moves win (vectorised); the
        other groups are decided one by one (`_exact_best`).
        """
        st = self.store
        cur = targets[cur_kept]
        n_cand = len(c.src)
        group = np.concatenate((c.dst, cur))
        rows = np.vstack((self._candidate_rows(c), st.row_of(cur)))
        value = np.concatenate((c.value, st.dist[cur]))
        moves = np.concatenate((st.moves[c.src] + 1, st.moves[cur]))
        order = np.lexsort((value, group))
        g = group[order]
        head = np.r_[True, g[1:] != g[:-1]]
        ref = np.repeat(order[head], np.diff(np.r_[np.nonzero(head)[0], len(order)]))
        same = np.empty(len(order), dtype=bool)
        same[order] = np.all(rows[order] == rows[ref], axis=1)
        mixed = distinct_sorted(group[~same])
        easy = ~np.isin(group, mixed)
        slot = np.unique(group, return_inverse=True)[1].reshape(-1)
        fewest = np.full(slot.max() + 1, np.iinfo(np.int64).max)
        np.minimum.at(fewest, slot[easy], moves[easy])
        win = easy & (moves == fewest[slot])
        for t in mixed.tolist():
            members = np.nonzero(group == t)[0]
            win[members[self._exact_best(rows[members], moves[members])]] = True
        cur_wins = np.zeros(len(fewest), dtype=bool)
        cur_wins[slot[n_cand:][win[n_cand:]]] = True
        chosen = np.nonzero(win[:n_cand])[0]
        self.tight.append(c.take(chosen))
        take = chosen[~cur_wins[slot[chosen]]]
        take = take[np.unique(c.dst[take], return_index=True)[1]]
        t = c.dst[take]
        st.rows[t, : rows.shape[1]] = rows[take]
        st.dist[t] = c.value[take]
        st.err[t] = c.error[take]
        st.moves[t] = moves[take]

    def _exact_best(self, rows: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """Indices of the competitors with the least (exact length, moves)."""
        values, _ = float_bound(rows, self.radicands)
        ref = int(np.argmin(values))
        same = np.all(rows == rows[ref], axis=1)
        if not same.all():
            best = ref
            for i in range(len(rows)):
                if i != best and sign_of_difference(rows[i], rows[best], self.radicands,
                                                    self.stats) < 0:
                    best = i
            same = np.all(rows == rows[best], axis=1)
        fewest = moves[same].min()
        return np.nonzero(same & (moves == fewest))[0]

    # -- the answer ---------------------------------------------------------------

    def result(self) -> YellowTrajectory:
        st = self.store
        arr = _concat(self.arrivals)
        if not len(arr.src):
            return YellowTrajectory(False, None, None, (), (), st.n, self.settled_count,
                                    self.stats.by_float, self.stats.by_sympy)
        kept = arr.value - arr.error <= float((arr.value + arr.error).min())
        arr = arr.take(kept)
        rows = self._candidate_rows(arr)
        best = self._exact_best(rows, st.moves[arr.src] + 1)
        length_row = rows[best[0]]
        n_moves = int(st.moves[arr.src[best[0]]] + 1)
        accs = self._representative(arr.take(best))
        positions = [tuple(self.track.car.position)]
        x, y = positions[0]
        vx = vy = 0
        for ax, ay in accs:
            vx, vy = vx + ax, vy + ay
            x, y = x + vx, y + vy
            positions.append((x, y))
        return YellowTrajectory(True, RadicalLength.from_row(length_row, self.radicands),
                                n_moves, tuple(positions), accs, st.n, self.settled_count,
                                self.stats.by_float, self.stats.by_sympy)

    def _representative(self, best: _Candidates) -> tuple[tuple[int, int], ...]:
        """Lexicographically smallest accelerations over the tight moves to a best arrival."""
        st = self.store
        t = _concat(self.tight)
        ok = st.settled[t.dst] & (st.moves[t.src] + 1 == st.moves[t.dst])
        t = t.take(ok)
        same = np.ones(len(t.src), dtype=bool)
        width = self.radicands.width
        st.widen(width)
        for lo in range(0, len(t.src), 1 << 15):
            part = t.take(np.arange(lo, min(lo + (1 << 15), len(t.src))))
            same[lo:lo + len(part.src)] = np.all(
                self._candidate_rows(part) == st.row_of(part.dst), axis=1)
        t = t.take(same)
        good = np.zeros(st.n, dtype=bool)
        good[best.src] = True
        while True:
            grown = good.copy()
            grown[t.src[good[t.dst]]] = True
            if np.array_equal(grown, good):
                break
            good = grown
        order = np.lexsort((t.acc, t.src))
        t = t.take(order)
        cur = 0  # the initial state is stored first
        accs: list[int] = []
        while True:
            lo, hi = np.searchsorted(t.src, [cur, cur + 1])
            options = [(int(t.acc[j]), int(t.dst[j])) for j in range(lo, hi)
                       if good[t.dst[j]]]
            options += [(int(a), -1) for a, s in zip(best.acc.tolist(), best.src.tolist(),
                                                     strict=True) if s == cur]
            acc, nxt = min(options)
            accs.append(acc)
            if nxt < 0:
                return tuple(ACCELERATION_OF_RANK[a] for a in accs)
            cur = nxt


def shortest_arrival(track: Track, classify: Classify, *,
                     upper_bound: RadicalLength | None = None,
                     max_states: int = DEFAULT_MAX_STATES) -> YellowTrajectory:
    """Yellow: the least-length arriving trajectory, its exact length, moves, representative.

    `classify` generates moves (`racecert.independent.successors`); `upper_bound`,
    when given, must be the length of some arriving trajectory (it only prunes).
    Raises `SearchBudget` past `max_states` stored states.

    >>> # y = shortest_arrival(track, geometry_classifier(track)); str(y.length), y.moves
    """
    upper = np.inf
    if upper_bound is not None:
        upper = float(upper_bound) * (1 + 2.0**-40) + 2.0**-40
    search = _Search(track, classify, max_states, upper)
    search.run()
    result = search.result()
    if upper_bound is not None:
        # the bound only prunes if it is an arrival's length; a wrong one is refused
        excess = dict(result.length.terms) if result.length is not None else {}
        for d, c in upper_bound.terms:
            excess[d] = excess.get(d, 0) - c
        if result.length is None or sign_of(excess) > 0:
            raise ValueError(f"upper bound {upper_bound} is below every arriving trajectory")
    return result
