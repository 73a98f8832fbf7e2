"""The factored one-hot CNF of "arrive within T moves", whose UNSAT proofs have lemmas.

The reachability-cut CNF of `racecert.independent.sat` is refuted by unit
propagation alone (its refutation is the forward closure of "supported"
states), and so is any CNF with one variable per whole car state: "state at t
-> one of its successors at t+1" is refuted by unit propagation as well
(backward, dead states first). A solver's proof then has no lemma. The
encoding here *factors* the state: per time step one-hot position, one-hot
velocity per axis, a cell variable tied to its coordinates, and the progress
bit, so that "this (cell, velocity) pair is impossible" is not a clause of the
formula but something the solver must learn: its refutation needs search and
the DRUP proof has real lemmas to check.

Variables are named in a pysat `IDPool` (("X", t, x), ("P", t, cell), ...);
`build_onehot_cnf` states one constraint family per builder method. The race
rules (opening rule by move number, progress and arrival of a table row) come
from `racecert.independent.race_rules`.

>>> # cnf = build_onehot_cnf(track, build_move_table(track, 5).rows, 4); solve_onehot(cnf)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from racecert.independent.race_rules import (
    LAYER,
    LAYER2,
    START,
    X2,
    Y2,
    OpeningRule,
    Row,
    X,
    Y,
    racing_progress,
    row_arrives,
    row_outcome,
    row_velocity,
)
from racecert.independent.sat import axis_forward, kinematic_bounds, run_with_proof
from racecert.model.track import Track

Cell = tuple[int, int, int]
"""(x, y, layer)."""
Move = tuple[tuple[int, int], Row]
"""A move-table row with its velocity v' = (vx, vy)."""

ONEHOT_DOMAIN = ("coordinates and velocities restricted per time step by per-axis kinematics "
                 "(in-grid forward reach from rest; while not arrived, a per-axis crossing "
                 "of the next line still due within the moves left) and cells by a "
                 "speed-capped relaxation (velocity continuity dropped, |v'| <= t at move t, "
                 "table geometry, lines and opening kept); all derived from the rules and "
                 "the verify move table, independent of the BFS oracle")


def onehot_domain(backward: bool, cells: bool) -> str:
    """The words of the certificate for the domain options of `build_onehot_cnf`."""
    if backward and cells:
        return ONEHOT_DOMAIN
    parts = ["coordinates and velocities restricted per time step by per-axis kinematics "
             "(in-grid forward reach from rest"]
    if backward:
        parts.append("; while not arrived, a per-axis crossing of the next line still due "
                     "within the moves left")
    if cells:
        parts.append("; cells by a speed-capped relaxation")
    parts.append("), derived from the rules and the verify move table, independent of the "
                 "BFS oracle")
    return "".join(parts)


@dataclass(frozen=True)
class OneHotCnf:
    """The one-hot CNF for horizon T and what its variables mean.

    Per time step t: X(t, x) / Y(t, y) one-hot coordinates, VX(t, v) / VY(t, v) one-hot
    velocity components and V(t, w) the velocity w = (vx, vy) of move t (t >= 1), chosen by
    move t; P(t, c) the car is alive (not yet arrived) on cell c = (x, y, layer) after t
    moves; G(t) the start line has been crossed; A(k) move k arrives; L(t) not arrived after
    t moves. `pos` maps (t, x, y, layer) to P's variable, `vel` (t, vx, vy) to V's,
    `arrive` k to A(k), `alive` t to L(t), for decoding a model; the goal is the unit
    clause -L(T) ("arrived within T moves"). `names` maps each named variable to its
    `IDPool` name, e.g. ("P", t, (x, y, layer)) (the at-most-one auxiliaries are unnamed).
    """

    horizon: int
    clauses: list[list[int]]
    nvars: int
    pos: dict[tuple[int, int, int, int], int]
    vel: dict[tuple[int, int, int], int]
    arrive: dict[int, int]
    alive: tuple[int, ...]
    backward: bool
    cells: bool
    domain: str = ONEHOT_DOMAIN
    names: dict[int, tuple] = field(default_factory=dict, repr=False)

    @property
    def literals(self) -> int:
        """Total number of literals over all clauses."""
        return sum(len(c) for c in self.clauses)


# -- the cell relaxation -------------------------------------------------------------------

Pair = tuple[Cell, int]
"""(cell, progress)."""


def _after(r: Row, g: int) -> Pair | None:
    """The (cell, progress) after move r from progress g; None when r arrives."""
    done, progress = row_outcome(g, r)
    return None if done else ((r[X2], r[Y2], r[LAYER2]), progress)


class _RelaxedMoves:
    """The table's moves from a cell as move t+1 under the speed cap t+1 and the opening
    rule by move number, each as its outcomes (after it from progress 0, from 1)."""

    def __init__(self, track: Track, rows: Sequence[Row]) -> None:
        self.rule = OpeningRule.of(track)
        # per source cell, by speed: [speed, v', row, outcomes (filled on first use)]
        self.by: dict[Cell, list[list]] = {}
        for r in rows:
            w = row_velocity(r)
            self.by.setdefault((r[X], r[Y], r[LAYER]), []).append(
                [max(abs(w[0]), abs(w[1])), w, r, None])
        for lst in self.by.values():
            lst.sort(key=lambda e: e[0])
        self.memo: dict[tuple[Cell, int], list[tuple[Pair | None, Pair | None]]] = {}

    def __call__(self, c: Cell, t: int) -> list[tuple[Pair | None, Pair | None]]:
        hit = self.memo.get((c, t))
        if hit is None:
            hit = self.memo[(c, t)] = [self._outcomes(e) for e in self._allowed(c, t)]
        return hit

    def _allowed(self, c: Cell, t: int) -> list[list]:
        opening = self.rule.active_for_move(t + 1)
        out = []
        for entry in self.by.get(c, ()):
            if entry[0] > t + 1:
                break
            if not opening or self.rule.allows_move(t + 1, *entry[1]):
                out.append(entry)
        return out

    @staticmethod
    def _outcomes(entry: list) -> tuple[Pair | None, Pair | None]:
        if entry[3] is None:
            entry[3] = (_after(entry[2], 0), _after(entry[2], 1))
        return entry[3]


def cell_relaxation(track: Track, rows: Sequence[Row], horizon: int) -> list[set[Pair]]:
    """Per time t < horizon, the (cell, progress) pairs a car may occupy without having arrived.

    A relaxation derived from the rules, not from the BFS: velocity continuity is dropped
    and only its consequence |v'|inf <= t+1 at move t+1 (from rest, one unit per move) is
    kept, with the opening rule by move number and the table's exact geometry, progress
    and arrival. Forward from (P0, progress 0), then backward from the arriving moves of
    move <= horizon; a pair survives when it is in both. Every real trajectory that arrives
    within `horizon` moves stays inside these sets, so restricting the one-hot CNF to them
    keeps it satisfiable whenever such a trajectory exists.

    >>> # cell_relaxation(track, table.rows, 5)[0] == {((x0, y0, layer0), 0)}
    """
    moves = _RelaxedMoves(track, rows)
    x0, y0 = track.car.position
    fwd = [{((x0, y0, track.car.layer), 0)}]
    for t in range(horizon - 1):
        fwd.append({outs[g] for c, g in fwd[t] for outs in moves(c, t)
                    if outs[g] is not None})
    alive: list[set[Pair]] = [set() for _ in range(horizon)]
    for t in range(horizon - 1, -1, -1):
        later = alive[t + 1] if t + 1 < horizon else set()
        alive[t] = {(c, g) for c, g in fwd[t]
                    if any(outs[g] is None or outs[g] in later for outs in moves(c, t))}
    return alive


# -- the builder ---------------------------------------------------------------------------


class _OneHotBuilder:
    """Variables (one `IDPool`) and clauses of one one-hot CNF, one method per family.

    Variables are declared in a fixed order (coordinates, time chain, cells, velocities,
    then the at-most-one auxiliaries), so the numbering is a function of the inputs.
    """

    def __init__(self, track: Track, rows: Sequence[Row], horizon: int, backward: bool,
                 cells: bool) -> None:
        from pysat.formula import IDPool

        T = self.T = horizon
        self.pool = IDPool()
        self.clauses: list[list[int]] = []
        self.rule = OpeningRule.of(track)
        x0, y0 = track.car.position
        self.c0: Cell = (x0, y0, track.car.layer)
        self.two_layers = track.layers == 2
        self.fx = axis_forward(x0, track.width, T)
        self.fy = axis_forward(y0, track.height, T)
        self.kin = (kinematic_bounds(track, (x0, y0, 0, 0, track.car.layer, 0), T)
                    if backward else None)
        self.rel = cell_relaxation(track, rows, T) if cells else None
        self.by_cell: dict[Cell, list[Move]] = {}
        for r in rows:
            self.by_cell.setdefault((r[X], r[Y], r[LAYER]), []).append((row_velocity(r), r))
        self.add = self.clauses.append

    def var(self, *name: object) -> int:
        """The variable called `name` (a new one on first use)."""
        return self.pool.id(name)

    # -- variables -------------------------------------------------------------------------

    def declare_timeline(self) -> None:
        """X(t, x), Y(t, y) over the forward in-grid reach; L(t), G(t), A(k); the layer bit."""
        T = self.T
        xs = [sorted({c for c, _ in self.fx[t]}) for t in range(T + 1)]
        ys = [sorted({c for c, _ in self.fy[t]}) for t in range(T + 1)]
        self.X = [{x: self.var("X", t, x) for x in xs[t]} for t in range(T + 1)]
        self.Y = [{y: self.var("Y", t, y) for y in ys[t]} for t in range(T + 1)]
        self.L = [self.var("L", t) for t in range(T + 1)]
        self.G = [self.var("G", t) for t in range(T)]
        self.A = {k: self.var("A", k) for k in range(1, T + 1)}
        self.lay = [self.var("layer", t) for t in range(T + 1)] if self.two_layers else []

    def declare_cells(self) -> None:
        """P(t, c) for endable cells with moves whose coordinates are reachable at t (and,
        with the cell relaxation, in it); the car is on its start cell at t = 0."""
        self.P: list[dict[Cell, int]] = []
        for t in range(self.T):
            if t == 0:
                here = [self.c0] if self.c0 in self.by_cell else []
            else:
                here = sorted(c for c in self.by_cell if c[0] in self.X[t] and c[1] in self.Y[t])
                if self.rel is not None:
                    here = [c for c in here if (c, 0) in self.rel[t] or (c, 1) in self.rel[t]]
            self.P.append({c: self.var("P", t, c) for c in here})
        start = self.P[0].get(self.c0)
        self.add([start] if start is not None else [-self.L[0]])  # no move from the start

    def _choices(self, t: int, c: Cell) -> list[Move]:
        """The moves cell c may make as move t+1: opening rule, forward reach, and a move that
        cannot arrive must end on a cell of time t+1."""
        opening = self.rule.active_for_move(t + 1)
        fx, fy = self.fx[t + 1], self.fy[t + 1]
        later = self.P[t + 1] if t + 1 < self.T else {}
        ok = []
        for w, r in self.by_cell[c]:
            if opening and not self.rule.allows_move(t + 1, *w):
                continue
            if (r[X2], w[0]) not in fx or (r[Y2], w[1]) not in fy:
                continue
            if (r[X2], r[Y2], r[LAYER2]) not in later and not row_arrives(1, r):
                continue
            ok.append((w, r))
        return ok

    def declare_velocities(self) -> None:
        """The rows each cell may choose at each move, V(t, w) for the velocities they use,
        and VX(t, v), VY(t, v) for their components."""
        T = self.T
        self.choices = [{c: self._choices(t, c) for c in self.P[t]} for t in range(T)]
        self.V: list[dict[tuple[int, int], int]] = [{}]
        for t in range(T):
            ws = sorted({w for moves in self.choices[t].values() for w, _ in moves})
            self.V.append({w: self.var("V", t + 1, w) for w in ws})
        self.VX: list[dict[int, int]] = [{}] + [
            {v: self.var("VX", t, v) for v in sorted({w[0] for w in self.V[t]})}
            for t in range(1, T + 1)]
        self.VY: list[dict[int, int]] = [{}] + [
            {v: self.var("VY", t, v) for v in sorted({w[1] for w in self.V[t]})}
            for t in range(1, T + 1)]

    def layer_lit(self, t: int, layer: int) -> int:
        """The literal "in `layer` after t moves"."""
        return self.lay[t] if layer == 1 else -self.lay[t]

    # -- constraint families ---------------------------------------------------------------

    def time_chain(self) -> None:
        """Alive at 0, arrived by T, start not crossed at 0; L(t+1) <-> L(t) and not A(t+1);
        G never resets."""
        L, G, A = self.L, self.G, self.A
        self.add([L[0]])
        self.add([-L[self.T]])
        self.add([-G[0]])
        for t in range(self.T):
            k = t + 1
            self.add([-L[t + 1], L[t]])
            self.add([-L[t + 1], -A[k]])
            self.add([L[t + 1], -L[t], A[k]])
            self.add([-A[k], L[t]])
            if t + 1 < self.T:
                self.add([-G[t], G[t + 1]])

    def _at_most_one(self, lits: list[int]) -> None:
        """At most one of `lits`: pairwise up to 6, else a sequential counter (pool aux)."""
        from pysat.card import CardEnc, EncType

        if len(lits) <= 6:
            for i in range(len(lits)):
                for j in range(i + 1, len(lits)):
                    self.add([-lits[i], -lits[j]])
            return
        enc = CardEnc.atmost(lits, 1, vpool=self.pool, encoding=EncType.seqcounter)
        self.clauses.extend(enc.clauses)

    def one_hot(self) -> None:
        """At most one value per coordinate and velocity component and time step; a velocity
        V(t, w) sets its components."""
        for t in range(self.T + 1):
            self._at_most_one(list(self.X[t].values()))
            self._at_most_one(list(self.Y[t].values()))
            if t >= 1:
                self._at_most_one(list(self.VX[t].values()))
                self._at_most_one(list(self.VY[t].values()))
        for t in range(1, self.T + 1):
            for (wx, wy), v in self.V[t].items():
                self.add([-v, self.VX[t][wx]])
                self.add([-v, self.VY[t][wy]])

    def cell_links(self, t: int) -> None:
        """Alive at t: on some cell, which fixes the coordinates, the layer and L(t)."""
        self.add([-self.L[t], *self.P[t].values()])
        for (x, y, layer), p in self.P[t].items():
            self.add([-p, self.L[t]])
            self.add([-p, self.X[t][x]])
            self.add([-p, self.Y[t][y]])
            if self.two_layers:
                self.add([-p, self.layer_lit(t, layer)])

    def coordinate_steps(self, t: int) -> None:
        """Each coordinate moves by the velocity of move t+1 (off the domain: forbidden)."""
        for pos, vel, nxt in ((self.X[t], self.VX[t + 1], self.X[t + 1]),
                              (self.Y[t], self.VY[t + 1], self.Y[t + 1])):
            for c, cv in pos.items():
                for v, vv in vel.items():
                    tgt = nxt.get(c + v)
                    self.add([-cv, -vv, tgt] if tgt is not None else [-cv, -vv])

    def acceleration(self, t: int) -> None:
        """|a| <= 1 per axis from move t to t+1 while alive (from rest at t = 0: the domain of
        VX(1), VY(1) is -1..1 already)."""
        if t < 1:
            return
        for cur, nxt in ((self.VX[t], self.VX[t + 1]), (self.VY[t], self.VY[t + 1])):
            for v, vv in cur.items():
                self.add([-self.L[t], -vv, *(nxt[v + a] for a in (-1, 0, 1) if v + a in nxt)])

    def moves(self, t: int) -> None:
        """Move t+1 is a chosen row from the cell; its layer, the start flag G(t+1) and the
        arrival A(t+1) follow the rows' crossings by `race_rules`."""
        T, G, k, V = self.T, self.G, t + 1, self.V[t + 1]
        starting_cells: list[int] = []
        arriving_cells: list[int] = []
        for c, p in self.P[t].items():
            moves = self.choices[t][c]
            self.add([-p, *(V[w] for w, _ in moves)])
            if self.two_layers and t + 1 < T:
                self._layer_after(t, p, moves)
            starts = [V[w] for w, r in moves if racing_progress(0, r[START])]
            if t + 1 < T:
                for sv in starts:
                    self.add([-p, -sv, G[t + 1]])
                if starts:
                    starting_cells.append(p)
                    self.add([-G[t + 1], G[t], -p, *starts])
            with_progress = [(w, r) for w, r in moves if row_arrives(1, r)]
            if with_progress:
                arriving_cells.append(p)
                self.add([-self.A[k], -p, -G[t], *(V[w] for w, _ in with_progress)])
                self.add([-self.A[k], -p, G[t],
                          *(V[w] for w, r in with_progress if row_arrives(0, r))])
        if t + 1 < T:
            self.add([-G[t + 1], G[t], *starting_cells])
        self.add([-self.A[k], *arriving_cells])

    def _layer_after(self, t: int, p: int, moves: list[Move]) -> None:
        """The layer after move t+1 from cell variable p, by the chosen row."""
        ends = {r[LAYER2] for _, r in moves}
        if len(ends) == 1:
            self.add([-p, self.layer_lit(t + 1, ends.pop())])
            return
        for w, r in moves:
            self.add([-p, -self.V[t + 1][w], self.layer_lit(t + 1, r[LAYER2])])

    def reach_bounds(self) -> None:
        """Redundant: (coordinate, velocity) pairs outside the forward in-grid reach."""
        for t in range(1, self.T + 1):
            for pos, vel, reach in ((self.X[t], self.VX[t], self.fx[t]),
                                    (self.Y[t], self.VY[t], self.fy[t])):
                for c, cv in pos.items():
                    for v, vv in vel.items():
                        if (c, v) not in reach:
                            self.add([-cv, -vv])

    def relaxation_bounds(self) -> None:
        """With the cell relaxation: a cell whose pair with progress g is not in it forbids
        that progress there."""
        if self.rel is None:
            return
        for t in range(1, self.T):
            for c, p in self.P[t].items():
                if (c, 0) not in self.rel[t]:
                    self.add([-p, self.G[t]])
                if (c, 1) not in self.rel[t]:
                    self.add([-p, -self.G[t]])

    def backward_bounds(self) -> None:
        """With `backward`: alive at t, each axis must still be able to cross the next line
        (start without progress, finish with it) within the T - t moves left."""
        if self.kin is None:
            return
        for t in range(1, self.T):
            k = self.T - t
            for pos, vel, bnd in ((self.X[t], self.VX[t], self.kin.bx),
                                  (self.Y[t], self.VY[t], self.kin.by)):
                for c, cv in pos.items():
                    for v, vv in vel.items():
                        if (c, v) not in bnd[0][k]:
                            self.add([-self.L[t], self.G[t], -cv, -vv])
                        if (c, v) not in bnd[1][k]:
                            self.add([-self.L[t], -self.G[t], -cv, -vv])


def build_onehot_cnf(track: Track, rows: Sequence[Row], horizon: int, *,
                     backward: bool = True, cells: bool = True) -> OneHotCnf:
    """The factored one-hot CNF: satisfiable iff some trajectory arrives within `horizon`.

    `rows` is the allowed-move table (every geometrically valid move, with its line
    crossings); the builder applies the kinematics (|a| <= 1, v' != 0), the opening
    rule by move number (exact: no state key), start-then-finish progress and arrival,
    all from `race_rules`. With `backward`, a car that has not arrived must also satisfy
    the per-axis backward bound (its next line still reachable on each axis within the
    moves left), which is implied by arriving in time and makes refutations much shorter.
    With `cells`, the cell variables are restricted to `cell_relaxation` (walls and lines
    taken into account, velocity relaxed to a speed cap). Redundant per-axis clauses
    forbid (coordinate, velocity) pairs outside the forward in-grid reach; they shorten
    the proofs too.

    Every trajectory arriving within `horizon` moves satisfies the clauses (each clause
    is a rule it obeys), so UNSAT proves none exists; conversely a model decodes
    (`decode_onehot`) to a trajectory whose moves are table rows.
    """
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    b = _OneHotBuilder(track, rows, horizon, backward, cells)
    b.declare_timeline()
    b.time_chain()
    b.declare_cells()
    b.declare_velocities()
    b.one_hot()
    for t in range(horizon):
        b.cell_links(t)
        b.coordinate_steps(t)
        b.acceleration(t)
        b.moves(t)
    b.reach_bounds()
    b.relaxation_bounds()
    b.backward_bounds()
    pos = {(t, *c): p for t in range(horizon) for c, p in b.P[t].items()}
    vel = {(t, *w): v for t in range(1, horizon + 1) for w, v in b.V[t].items()}
    return OneHotCnf(horizon, b.clauses, b.pool.top, pos, vel, b.A, tuple(b.L), backward,
                     cells, onehot_domain(backward, cells), dict(b.pool.id2obj))


# -- decoding and solving ------------------------------------------------------------------


def decode_onehot(cnf: OneHotCnf, true_vars: set[int]) -> tuple[tuple[int, int], ...]:
    """The positions p0..pk of the trajectory a model of `cnf` describes (k = arrival move)."""
    cell_at: dict[int, tuple[int, int]] = {}
    for (t, x, y, _), v in cnf.pos.items():
        if v in true_vars:
            if t in cell_at:
                raise ValueError(f"two cells true at time {t}")
            cell_at[t] = (x, y)
    vel_at: dict[int, tuple[int, int]] = {}
    for (t, vx, vy), v in cnf.vel.items():
        if v in true_vars and t - 1 in cell_at:
            vel_at[t] = (vx, vy)
    positions: list[tuple[int, int]] = []
    for t in range(cnf.horizon):
        if t not in cell_at:
            raise ValueError(f"no cell true at time {t} before an arrival")
        positions.append(cell_at[t])
        if cnf.arrive[t + 1] in true_vars:
            (x, y), (vx, vy) = cell_at[t], vel_at[t + 1]
            positions.append((x + vx, y + vy))
            return tuple(positions)
    raise ValueError("the model arrives at no move")


@dataclass(frozen=True)
class OneHotSolve:
    """A solver's answer on a one-hot CNF: a trajectory's positions, or the DRUP proof.

    `positions` is None when unsatisfiable, or when the model does not decode (then
    `decode_error` says why: only a corrupted CNF has such models).
    """

    satisfiable: bool
    solver: str
    positions: tuple[tuple[int, int], ...] | None
    proof_lines: tuple[str, ...]
    proof_path: str | None
    proof_bytes: int
    seconds: float
    decode_error: str = ""


def solve_onehot(cnf: OneHotCnf, solver_name: str = "glucose4",
                 proof_path: str | Path | None = None) -> OneHotSolve:
    """Solve with a proof-logging python-sat solver; decode a model or keep the proof."""
    run = run_with_proof(cnf.clauses, solver_name, proof_path)
    positions = None
    error = ""
    if run.sat:
        try:
            positions = decode_onehot(cnf, run.true_vars)
        except ValueError as exc:
            error = str(exc)
    return OneHotSolve(run.sat, solver_name, positions, run.proof, run.proof_path,
                       run.proof_bytes, run.seconds, error)
