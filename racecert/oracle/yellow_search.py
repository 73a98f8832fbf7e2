"""The state of one compiled yellow search and the loop that drives it (`yellow_kernel`).

`Search` owns the per-state arrays, the state table, the heap, the kept edges and
arrivals, and the exact forms' transition table; `run` calls the kernel until it is done,
growing the arrays (`GROW`), answering what only Python can (`NEED`: the square-free
decomposition of a new move length, exact comparisons of two lengths by `RadicalSum`),
reporting progress between slices (`SLICE`, where Ctrl-C and time limits land as well)
and raising `StateLimitReached` (`OVER`). The kernel stops at a state count, never a
time, so a budget stops the search at the same place on every machine.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from racecert.model.budget import StateBudget
from racecert.model.heap import fresh_zeros
from racecert.model.radicals import RadicalSum, squarefree_decomposition
from racecert.model.rules import CarState
from racecert.model.track import Track
from racecert.oracle import yellow_kernel as yk
from racecert.oracle import yellow_tables as yt

SLICE_STATES = 1 << 15
"""States settled per kernel call: between calls Python runs signal handlers (Ctrl-C, the
time limit) and progress reports."""
_START = 1024
HEADS_PER_STATE = 8
"""The state index's heads (`yellow_tables.state_find`) stay below this many per state
of room (plus one per cell): more heads per cell shorten the chains where states crowd
into few cells, at a memory cost bounded by the states."""
GROWTH = 4
"""Arrays grow by this factor: each copy is of at most a quarter of the final size (growing
the arrays of millions of states costs about as much as settling them otherwise)."""
STATES_PER_CELL = 64
"""Room for this many states per drivable cell to begin with (`initial_capacity`)."""
MAX_INITIAL = 1 << 22
"""The most states `initial_capacity` makes room for (about 400 MB of address space)."""


def initial_capacity(track: Track, budget_limit: int = -1) -> int:
    """The states yellow's search makes room for before it starts: `STATES_PER_CELL` per
    drivable cell (winding tracks store that many or a few less: the serpentine ~48, llanura
    ~28), at most `MAX_INITIAL` and `budget_limit` (if >= 0) plus one expansion.

    The arrays are zeroed, not filled, so the room no state reaches is never touched and
    costs nothing; the room that is used spares the copies of growing (`GROWTH`), which in
    a fresh process cost a tenth of the search on the serpentine (pages faulted twice).
    """
    cells = int(track.surface_arrays.drivable.any(axis=0).sum())
    cap = min(STATES_PER_CELL * cells, MAX_INITIAL)
    if budget_limit >= 0:
        cap = min(cap, budget_limit + 16)
    return max(cap, _START)


def finish_ints(track: Track) -> np.ndarray:
    """The finish line as the kernel's integers (`yellow_kernel.F_*`)."""
    f = track.finish
    row = [2 * f.k + 1, 2 * f.lo - 1, 2 * f.hi + 1, 0 if f.axis == "x" else 1, f.k, f.sign]
    return np.array(row, dtype=np.int64)


def endable_box(track: Track) -> np.ndarray:
    """xmin, xmax, ymin, ymax of the cells endable in some layer: every move ends inside
    (`yellow_prune.doomed_one`)."""
    ys, xs = np.nonzero(track.surface_arrays.endable.any(axis=0))
    if not len(xs):
        return np.array([0, -1, 0, -1], dtype=np.int64)
    return np.array([xs.min(), xs.max(), ys.min(), ys.max()], dtype=np.int64)


def drivable_prefix(track: Track) -> tuple[np.ndarray, np.ndarray]:
    """Per row and per column, the prefix counts of the cells drivable in some layer
    (row y: [y, x] counts the cells before column x; `yellow_prune.walled_one`)."""
    d = track.surface_arrays.drivable.any(axis=0).astype(np.int32)
    rowp = np.zeros((d.shape[0], d.shape[1] + 1), dtype=np.int32)
    colp = np.zeros((d.shape[1], d.shape[0] + 1), dtype=np.int32)
    rowp[:, 1:] = d.cumsum(axis=1)
    colp[:, 1:] = d.T.cumsum(axis=1)
    return rowp, colp


class Search:
    """One search of `yellow_kernel.search` (its module docstring: modes and statuses).

    `limit` prunes moves whose end cannot arrive within it (`prune`); `cut` is the tie
    cut's bound (integer part, irrational id, moves) or None; `settle_budget` ends a
    ``BOUND`` search. `forms` (``EXACT`` only) interns the irrational parts. `capacity`:
    the states to make room for at first (`initial_capacity`; the queue and the kept
    moves get twice as many entries).
    """

    def __init__(self, rules_args: tuple, track: Track, mode: int, *, prune: bool = False,
                 limit: float = np.inf, cut: tuple[int, int, int] | None = None,
                 settle_budget: int = -1, weight: float = 1.0,
                 capacity: int = _START) -> None:
        self.weight = weight
        self.rules_args, self.mode = rules_args, mode
        self.fin = finish_ints(track)
        self.width = track.width
        self.steps = np.empty(track.width * track.height, dtype=np.int64)
        yk.cell_steps(np.ascontiguousarray(track.surface_arrays.drivable.any(axis=0)),
                      self.fin, self.steps)
        self.box = endable_box(track)
        self.rowp, self.colp = drivable_prefix(track)
        self.prune, self.limit = prune, float(limit)
        self.cut = cut if cut is not None else (0, -1, 0)
        self.cut_on = cut is not None
        self.settle_budget = settle_budget
        c = capacity
        # Zeroed, not filled (as `_grow_states`): the kernel sets every field of a state
        # when it stores it, and the room no state reaches is never touched (fresh pages
        # from the system, `model.heap.fresh_zeros`: a zeroed block the allocator reuses
        # would be cleared whole).
        self.cols = fresh_zeros((7, c), np.int32)
        self.dist = fresh_zeros(c, np.float64)
        # ids, moves and interned ids fit 32 bits (`_grow_states`, `_grow_queue`): the
        # arrays are held and copied for millions of states
        self.pred = fresh_zeros(c, np.int32)
        self.moves = fresh_zeros(c, np.int32)
        ce, cb = (c if mode == yk.EXACT else 1), (c if mode == yk.BOUND else 1)
        self.ipart = fresh_zeros(ce, np.int64)  # exact forms: EXACT only
        self.irr = fresh_zeros(ce, np.int32)
        self.settled = fresh_zeros(c, np.uint8)
        self.hval = fresh_zeros(cb, np.float64)  # estimates: BOUND only
        self.lft = fresh_zeros(cb, np.int64)
        self.wh = track.width * track.height
        self.head = np.full(self.wh, -1, dtype=np.int32)  # one head per cell to begin
        self.nxt = fresh_zeros(c, np.int32)
        self.skey = fresh_zeros(c, np.int64)
        # the heap's keys (BOUND only, else bucket lists), one per queue entry
        self.hp = fresh_zeros(2 * c if mode == yk.BOUND else 1, np.float64)
        self.hq = fresh_zeros(2 * c, np.int32)
        self.hi = fresh_zeros(2 * c, np.int32)
        self.cnt = np.zeros(yt.N_COUNTERS, dtype=np.int64)
        self.bhead = np.full(_START, -1, dtype=np.int64)
        self.cnt[yk.C_BSRC] = -1
        self.cnt[yk.C_HCAP] = HEADS_PER_STATE * c + self.wh
        self.best = np.array([np.inf, 0.0])
        self.e_src = fresh_zeros(2 * c, np.int32)  # ids < 2^31: `_grow_states`
        self.e_dst = fresh_zeros(2 * c, np.int32)
        self.e_acc = fresh_zeros(2 * c, np.int8)
        self.a_src = np.zeros(64, dtype=np.int64)
        self.a_acc = np.zeros(64, dtype=np.int64)
        self.a_len = np.zeros(64)
        self.answers = np.zeros((16, 5), dtype=np.int64)
        self.req = np.zeros((64, 5), dtype=np.int64)
        # exact forms (EXACT only): (part, n) -> part, n -> (k, d), the interned parts
        f = 256 if mode == yk.EXACT else 2
        self.t1 = np.full(f, -1, dtype=np.int64)
        self.t2 = np.zeros(f, dtype=np.int64)
        self.t3 = np.zeros(f, dtype=np.int64)
        self.sk = np.full(4 * f, -1, dtype=np.int64)
        self.sv = np.zeros((4 * f, 2), dtype=np.int64)
        self.p_off = np.zeros(f, dtype=np.int64)
        self.p_len = np.zeros(f, dtype=np.int64)
        self.pd = np.zeros(4 * f, dtype=np.int64)
        self.pk = np.zeros(4 * f, dtype=np.int64)
        self.itk = np.zeros(2 * f, dtype=np.uint64)
        self.itv = np.full(2 * f, -1, dtype=np.int64)
        self.sqf: dict[int, tuple[int, int]] = {}  # n -> (k, d), all handed in
        self.sqf_in = np.zeros((64, 3), dtype=np.int64)
        # the kernel's scratch (it allocates nothing: `yellow_kernel.search`); bd and bk
        # follow pd's length (`run`)
        self.scratch = (np.zeros(9, dtype=np.int32), np.zeros((7, 10), dtype=np.int32),
                        np.zeros((8, 9), dtype=np.int32), np.zeros((8, 9), dtype=np.int64),
                        np.zeros(9))
        self.bd = self.bk = np.zeros(0, dtype=np.int64)

    # -- the results ----------------------------------------------------------------------

    @property
    def n(self) -> int:
        """States stored."""
        return int(self.cnt[yk.C_N])

    @property
    def states_settled(self) -> int:
        return int(self.cnt[yk.C_SETTLED])

    @property
    def windows(self) -> int:
        """The unit distance windows the settled states span (1 + floor of the largest
        settled distance): about the yellow length, as the batched search's rounds were."""
        return int(self.cnt[yk.C_WIN])

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept moves (src, dst: int32, acceleration index: int8), in the order they were
        kept, that the selection can find tight (`yellow_kernel.near_edges`): the kernel kept
        every move within the tolerance of its target's distance when it was relaxed. The
        others are dropped from the kept moves (in place: no copy of millions of moves)."""
        m = yk.near_edges(self.e_src, self.e_dst, self.e_acc, int(self.cnt[yk.C_EDGES]),
                          self.dist, self.settled, self.cols, self.mode == yk.EXACT)
        self.cnt[yk.C_EDGES] = m
        return self.e_src[:m], self.e_dst[:m], self.e_acc[:m]

    def arrivals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = int(self.cnt[yk.C_ARR])
        return self.a_src[:k], self.a_acc[:k], self.a_len[:k]

    def velocity(self, i: int) -> tuple[int, int]:
        return int(self.cols[2, i]), int(self.cols[3, i])

    def extend(self, src: np.ndarray, vx: np.ndarray, vy: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Exact lengths (integer part, irrational id) of the paths to `src` plus one move
        (vx, vy) each (``EXACT`` only)."""
        return self.extend_forms(self.ipart[src], self.irr[src], vx, vy)

    def extend_forms(self, ip: np.ndarray, ir: np.ndarray, vx: np.ndarray, vy: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Exact lengths (ip, ir) plus one move (vx, vy) each, interned like the search's."""
        assert self.mode == yk.EXACT
        k = len(ip)
        c = self.cnt
        while (c[yk.C_PARTS] + k + 9 > len(self.p_off)
               or 2 * (c[yk.C_PARTS] + k + 9) > len(self.itv)
               or c[yk.C_POOL] + (k + 9) * (c[yk.C_MAXLEN] + 1) > len(self.pd)):
            self._grow_forms(k + 9)
        out_ip, out_ir = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
        args = (np.ascontiguousarray(ip, dtype=np.int64), np.ascontiguousarray(ir, dtype=np.int64),
                np.ascontiguousarray(vx, dtype=np.int64), np.ascontiguousarray(vy, dtype=np.int64),
                out_ip, out_ir)
        while (n := yt.extend_many(*args, self.t1, self.t2, self.t3, self.sk, self.sv,
                                   self.sqf_in, self.p_off, self.p_len, self.pd, self.pk,
                                   self.itk, self.itv, self.cnt)) >= 0:
            self._decompose(int(n))
        return out_ip, out_ir

    def length_of_moves(self, velocities: list[tuple[int, int]]) -> tuple[int, int]:
        """The exact length (integer part, irrational id) of moves with these velocities."""
        ip, ir = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        for vx, vy in velocities:
            ip, ir = self.extend_forms(ip, ir, np.array([vx]), np.array([vy]))
        return int(ip[0]), int(ir[0])

    def path(self, i: int) -> list[int]:
        """The ids from the start to `i` along `pred`."""
        out = [i]
        while self.pred[out[-1]] >= 0:
            out.append(int(self.pred[out[-1]]))
        return out[::-1]

    # -- running --------------------------------------------------------------------------

    def start(self, s: CarState) -> None:
        """Store the initial state; the kernel opens it at distance 0 on its first call."""
        self.cols[:, 0] = (s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase)

    def run(self, budget: StateBudget | None, what: str,
            progress: Callable[[int, int], None] | None = None,
            stop_margin: float = 0.0) -> None:
        """Run to the end; `budget` bounds the states stored (`what` names the search in
        the message), `progress(windows, settled)` is called between slices."""
        max_states = budget.limit if budget is not None else -1
        while True:
            if len(self.bd) != len(self.pd):
                self.bd, self.bk = (np.empty(len(self.pd), dtype=np.int64) for _ in "dk")
            status = yk.search(
                self.mode, *self.rules_args, self.fin, self.steps, self.box, self.rowp,
                self.colp, self.prune, self.limit,
                self.cut_on, *self.cut, self.settle_budget, max_states, SLICE_STATES,
                stop_margin, self.weight, self.cols, self.dist, self.pred, self.moves,
                self.ipart, self.irr, self.settled, self.hval, self.lft, self.head, self.nxt,
                self.skey,
                self.hp, self.hq, self.hi, self.bhead, self.cnt, self.best, self.e_src,
                self.e_dst, self.e_acc, self.a_src, self.a_acc, self.a_len, self.t1,
                self.t2, self.t3, self.answers, self.req, self.sk, self.sv, self.sqf_in,
                self.p_off,
                self.p_len, self.pd, self.pk, self.itk, self.itv, *self.scratch, self.bd,
                self.bk)
            if status == yk.DONE:
                break
            if status == yk.GROW:
                self._grow()
            elif status == yk.NEED:
                self._answer()
            elif status == yk.OVER:
                assert budget is not None
                budget.check(self.n, what, f"after settling {self.states_settled:,} states")
            elif progress is not None:
                progress(self.windows, self.states_settled)
        if progress is not None:
            progress(self.windows, self.states_settled)

    def value(self, ipart: int, irr: int) -> RadicalSum:
        """The exact length with integer part `ipart` and interned irrational part `irr`."""
        off, m = int(self.p_off[irr]), int(self.p_len[irr])
        terms = list(zip(self.pd[off: off + m].tolist(), self.pk[off: off + m].tolist(),
                         strict=True))
        return RadicalSum.from_terms(terms + [(1, ipart)])

    def _decompose(self, n: int) -> None:
        """Hand n = k²·d to the kernel's square-free table (`radicals.squarefree_decomposition`;
        the kernel records it on its next call)."""
        if n in self.sqf:
            return
        self.sqf[n] = squarefree_decomposition(n)
        rows = [(n, *self.sqf[n])]
        if 2 * len(self.sqf) > len(self.sk):  # a new, larger table: hand everything in again
            self.sk = np.full(2 * len(self.sk), -1, dtype=np.int64)
            self.sv = np.zeros((len(self.sk), 2), dtype=np.int64)
            rows = [(m, *kd) for m, kd in self.sqf.items()]
            self.cnt[yk.C_SQFIN] = 0
        r = int(self.cnt[yk.C_SQFIN])
        if r + len(rows) > len(self.sqf_in):
            self.sqf_in = _double(self.sqf_in, 2 * (r + len(rows)))
        self.sqf_in[r: r + len(rows)] = rows
        self.cnt[yk.C_SQFIN] = r + len(rows)

    def _answer(self) -> None:
        """New irrational ids and exact comparisons the kernel asked for."""
        k = int(self.cnt[yk.C_REQ])
        for kind, a, b, c, d in self.req[:k].tolist():
            if kind == 0:
                self._decompose(a)
            else:
                r = int(self.cnt[yk.C_ANS])
                if r == len(self.answers):
                    self.answers = np.concatenate((self.answers, np.zeros_like(self.answers)))
                self.answers[r] = (a, b, c, d, int(self.value(a, b) < self.value(c, d)))
                self.cnt[yk.C_ANS] = r + 1
        self.cnt[yk.C_REQ] = 0

    def _grow(self) -> None:
        """Grow (by `GROWTH`) whatever is too small for one more expansion."""
        n = self.n
        if n + 9 > len(self.dist):
            self._grow_states(GROWTH * len(self.dist))
        self.cnt[yk.C_HCAP] = HEADS_PER_STATE * len(self.dist) + self.wh
        if self.cnt[yk.C_LONG]:
            self.cnt[yk.C_LONG] = 0
            if 2 * len(self.head) <= self.cnt[yk.C_HCAP]:
                self.head = np.full(2 * len(self.head), -1, dtype=np.int32)
                yt.state_reindex(self.head, self.nxt, self.skey, n, self.wh)
        if self.cnt[yk.C_HEAP] + 9 > len(self.hi):
            self._grow_queue()
        if self.cnt[yk.C_BNEED] >= len(self.bhead):
            size = max(2 * len(self.bhead), 2 * int(self.cnt[yk.C_BNEED]))
            self.bhead = np.concatenate((self.bhead, np.full(size - len(self.bhead), -1,
                                                             dtype=np.int64)))
        if self.cnt[yk.C_EDGES] + 9 > len(self.e_src):
            self.e_src, self.e_dst, self.e_acc = (
                _double(a) for a in (self.e_src, self.e_dst, self.e_acc))
        if self.cnt[yk.C_ARR] + 9 > len(self.a_src):
            self.a_src, self.a_acc, self.a_len = (
                _double(a) for a in (self.a_src, self.a_acc, self.a_len))
        if self.mode != yk.EXACT:
            return
        c = self.cnt
        if 2 * (c[yk.C_TRANS] + 9) > len(self.t1):
            size = 2 * len(self.t1)
            n1, n2, n3 = (np.full(size, -1, dtype=np.int64), np.zeros(size, dtype=np.int64),
                          np.zeros(size, dtype=np.int64))
            yt.trans_rehash(self.t1, self.t2, self.t3, n1, n2, n3)
            self.t1, self.t2, self.t3 = n1, n2, n3
        while (c[yk.C_PARTS] + 9 > len(self.p_off) or 2 * (c[yk.C_PARTS] + 9) > len(self.itv)
               or c[yk.C_POOL] + 9 * (c[yk.C_MAXLEN] + 1) > len(self.pd)):
            self._grow_forms()

    def _grow_forms(self, extra: int = 9) -> None:
        """Grow whichever of the interned parts' arrays lacks room for `extra` more parts
        (the hash table rebuilt)."""
        c = self.cnt
        if c[yk.C_PARTS] + extra > len(self.p_off):
            if GROWTH * len(self.p_off) >= 2**31:  # the states keep the ids in 32 bits
                raise MemoryError("yellow: more than 2^31 interned irrational parts")
            self.p_off, self.p_len = _double(self.p_off), _double(self.p_len)
        if c[yk.C_POOL] + extra * (c[yk.C_MAXLEN] + 1) > len(self.pd):
            self.pd, self.pk = _double(self.pd), _double(self.pk)
        if 2 * (c[yk.C_PARTS] + extra) > len(self.itv):
            size = GROWTH * len(self.itv)
            self.itk = np.zeros(size, dtype=np.uint64)
            self.itv = np.full(size, -1, dtype=np.int64)
            yt.rehash_parts(self.p_off, self.p_len, self.pd, self.pk, int(c[yk.C_PARTS]),
                            self.itk, self.itv)

    def _grow_queue(self) -> None:
        """Grow the queue's entries (heap or bucket lists; entry indices < 2^31)."""
        if GROWTH * len(self.hi) >= 2**31:
            raise MemoryError("yellow: more than 2^31 queue entries")
        self.hq, self.hi = _double(self.hq), _double(self.hi)
        if len(self.hp) > 1:
            self.hp = _double(self.hp)

    def _grow_states(self, cap: int) -> None:
        if cap >= 2**31:
            raise MemoryError("yellow: more than 2^31 states")
        # Zeroed, not filled: the kernel sets every field of a state when it stores it, and
        # untouched zero pages cost nothing until then (a fill wrote all of the new room).
        cols = fresh_zeros((7, cap), np.int32)
        cols[:, : self.cols.shape[1]] = self.cols
        self.cols = cols
        for name in ("dist", "pred", "moves", "ipart", "irr", "settled", "hval", "lft", "nxt",
                     "skey"):
            a = getattr(self, name)
            if len(a) > 1:  # the arrays a mode does not use stay of length 1
                setattr(self, name, _double(a, cap))


def _double(a: np.ndarray, size: int | None = None) -> np.ndarray:
    """`a` copied into zeros of GROWTH times (or `size`) its length."""
    out = fresh_zeros(size or GROWTH * len(a), a.dtype)
    out[: len(a)] = a
    return out
