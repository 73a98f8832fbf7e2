"""Time-indexed reachability as CNF (python-sat), with checkable UNSAT proofs.

Question: can the car arrive within T moves? A *reachability-cut* encoding
answers it: one variable r(t, s) per time t = 0..T-1 and car state
s = (x, y, vx, vy, layer, progress) allowed at t, and

- ``r(0, s0)``                                   (the car starts at rest in s0)
- ``r(t, s) -> OR r(t-1, p)`` over the moves p -> s of the move table made as
  move t (support: a state at time t needs a predecessor at t-1)
- ``OR r(t-1, p)`` over every p with an *arriving* move as move t <= T (goal)

A model yields a trajectory by walking supports back from a true goal literal;
conversely a trajectory sets its own states true, so the CNF is satisfiable
iff some trajectory arrives within T moves. Every clause has at most one
negative literal (dual Horn), so unit propagation alone refutes an
unsatisfiable instance: the solver's DRUP proof is short (often just the empty
clause) and the proof checker's unit propagation over the whole CNF is what
certifies the lower bound. The second encoding of this module,
`build_onehot_cnf` (factored one-hot coordinates, velocities and cells), needs
search: its proofs have lemmas for the checker to verify (see below).

Which states get variables (the *domain*), to keep the CNF small, is a sound
relaxation derived from the rules, never from the BFS oracle's states:

- ``closure``: states reachable from s0 under the move table at *any* time
  (untimed; the opening phase min(t, K) is tracked), computed here;
- ``kinematic``: per axis, ignoring walls and the other axis, (c, v) at time t
  must be reachable from (c0, 0) in t moves of acceleration -1/0/+1 inside
  the grid, and must allow a move across the next line still to cross (start
  line while progress = 0, finish line after) within T - t moves.

The move table is an argument (`Successors`): this module never decides move
validity itself, so the certificate rests on whatever independent geometry
built the table.

>>> # cnf = build_reach_cnf(track, successors, s0, horizon=5); solve_reach(cnf)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from racecert.independent.interrupt import pysat_interrupts
from racecert.model.track import Line, Track

State = tuple[int, int, int, int, int, int]
"""(x, y, vx, vy, layer, progress): a car state without its time / phase."""

Successors = Callable[[State, int], Sequence[tuple[State, bool]]]
"""successors(state, phase) -> [(next state, arrives)] for every valid move from `state`
made with opening phase `phase` (= min(moves made so far, K))."""

RESTRICTION = ("variables restricted to the untimed closure of the move table from the "
               "initial state intersected with per-axis kinematic bounds (derived from "
               "the rules; independent of the BFS oracle)")


# -- the kinematic relaxation ----------------------------------------------------------


def _axis_forward(c0: int, n: int, horizon: int) -> list[set[tuple[int, int]]]:
    """fw[t] = {(c, v)} reachable from (c0, 0) in t moves on one axis, positions in 0..n-1."""
    fw = [{(c0, 0)}]
    for _ in range(horizon):
        nxt = set()
        for c, v in fw[-1]:
            for a in (-1, 0, 1):
                w = v + a
                if 0 <= c + w < n:
                    nxt.add((c + w, w))
        fw.append(nxt)
    return fw


def _axis_targets(line: Line, axis: str, n: int) -> Callable[[int, int], bool]:
    """Whether the one-axis move c -> c + w can be part of a legal crossing of `line`."""
    if line.axis == axis:
        k, sign = line.k, line.sign

        def crosses(c: int, w: int) -> bool:
            return w * sign > 0 and min(c, c + w) <= k < max(c, c + w)
        return crosses
    lo, hi = line.lo, line.hi

    def spans(c: int, w: int) -> bool:
        return min(c, c + w) <= hi and max(c, c + w) >= lo
    return spans


def _axis_backward(target: Callable[[int, int], bool], n: int, horizon: int
                   ) -> list[set[tuple[int, int]]]:
    """bw[k] = {(c, v)} from which a target move happens within k moves (one axis)."""
    vmax = n
    pairs = [(c, v) for c in range(n) for v in range(-vmax, vmax + 1)]
    bw: list[set[tuple[int, int]]] = [set()]
    for _ in range(horizon):
        prev = bw[-1]
        cur = set()
        for c, v in pairs:
            for a in (-1, 0, 1):
                w = v + a
                if not 0 <= c + w < n:
                    continue
                if target(c, w) or (c + w, w) in prev:
                    cur.add((c, v))
                    break
        bw.append(cur)
    return bw


@dataclass(frozen=True)
class KinematicBounds:
    """Per-axis forward and backward reach sets for one track, initial state and horizon."""

    fx: list[set[tuple[int, int]]]
    fy: list[set[tuple[int, int]]]
    bx: tuple[list[set[tuple[int, int]]], list[set[tuple[int, int]]]]
    by: tuple[list[set[tuple[int, int]]], list[set[tuple[int, int]]]]
    horizon: int

    def allows(self, t: int, s: State) -> bool:
        """Whether state s may be occupied at time t (0 <= t < horizon)."""
        x, y, vx, vy, _, progress = s
        k = self.horizon - t
        return ((x, vx) in self.fx[t] and (y, vy) in self.fy[t]
                and (x, vx) in self.bx[progress][k] and (y, vy) in self.by[progress][k])


def kinematic_bounds(track: Track, s0: State, horizon: int) -> KinematicBounds:
    """The per-axis relaxation described in the module docstring."""
    w, h = track.width, track.height
    fx = _axis_forward(s0[0], w, horizon)
    fy = _axis_forward(s0[1], h, horizon)
    bx = tuple(_axis_backward(_axis_targets(line, "x", w), w, horizon)
               for line in (track.start, track.finish))
    by = tuple(_axis_backward(_axis_targets(line, "y", h), h, horizon)
               for line in (track.start, track.finish))
    return KinematicBounds(fx, fy, bx, by, horizon)  # type: ignore[arg-type]


# -- the untimed closure -----------------------------------------------------------------


def untimed_closure(successors: Successors, s0: State, phase_limit: int,
                    cap: int | None = None) -> set[tuple[State, int]]:
    """Every (state, phase) reachable from (s0, 0) through non-arriving moves, at any time.

    `cap` bounds the number of states (ValueError beyond it), so a huge track fails
    clearly instead of exhausting memory.
    """
    seen = {(s0, 0)}
    stack = [(s0, 0)]
    while stack:
        s, ph = stack.pop()
        nph = min(ph + 1, phase_limit)
        for nxt, arrives in successors(s, ph):
            if arrives or (nxt, nph) in seen:
                continue
            seen.add((nxt, nph))
            stack.append((nxt, nph))
            if cap is not None and len(seen) > cap:
                raise ValueError(f"untimed closure exceeds {cap} states")
    return seen


# -- the CNF -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReachCnf:
    """The CNF for horizon T, with the meaning of its variables.

    `var_of[(t, s)]` is the variable of state s at time t; `preds[v]` the variables
    that support v (empty for the initial state); `goal` the variables of states with
    an arriving move (as the next move).
    """

    horizon: int
    clauses: list[list[int]]
    nvars: int
    var_of: dict[tuple[int, State], int]
    preds: dict[int, list[int]]
    goal: list[int]
    arrivals: dict[int, list[State]]
    restriction: str = RESTRICTION

    @property
    def literals(self) -> int:
        """Total number of literals over all clauses."""
        return sum(len(c) for c in self.clauses)


def build_reach_cnf(track: Track, successors: Successors, s0: State, horizon: int,
                    phase_limit: int, closure: set[tuple[State, int]] | None = None
                    ) -> ReachCnf:
    """The reachability-cut CNF: satisfiable iff some trajectory arrives within `horizon` moves.

    `closure` may be passed to share one untimed closure between horizons.
    """
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    if closure is None:
        closure = untimed_closure(successors, s0, phase_limit)
    kin = kinematic_bounds(track, s0, horizon)
    by_phase: dict[int, list[State]] = {}
    for s, ph in closure:
        by_phase.setdefault(ph, []).append(s)
    for lst in by_phase.values():
        lst.sort()
    var_of: dict[tuple[int, State], int] = {}
    layers: list[list[State]] = []
    for t in range(horizon):
        if t == 0:
            layer = [s0] if kin.allows(0, s0) else []
        else:
            layer = [s for s in by_phase.get(min(t, phase_limit), []) if kin.allows(t, s)]
        for s in layer:
            var_of[(t, s)] = len(var_of) + 1
        layers.append(layer)
    preds: dict[int, list[int]] = {v: [] for v in var_of.values()}
    goal: list[int] = []
    arrivals: dict[int, list[State]] = {}
    for t in range(horizon):
        ph = min(t, phase_limit)
        for p in layers[t]:
            vp = var_of[(t, p)]
            for nxt, arrives in successors(p, ph):
                if arrives:
                    if vp not in arrivals:
                        goal.append(vp)
                    arrivals.setdefault(vp, []).append(nxt)
                    continue
                vs = var_of.get((t + 1, nxt))
                if vs is not None:
                    preds[vs].append(vp)
    clauses: list[list[int]] = []
    if (0, s0) in var_of:
        clauses.append([var_of[(0, s0)]])
    for (t, _), v in var_of.items():
        if t > 0:
            clauses.append([-v, *preds[v]])
    clauses.append(list(goal))
    return ReachCnf(horizon, clauses, len(var_of), var_of, preds, goal, arrivals)


# -- solving ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReachSolve:
    """A solver's answer for one horizon.

    `trajectory` (when satisfiable) lists the states at t = 0..k-1 followed by the
    arrived state; `proof_lines` (when unsatisfiable) is the solver's DRUP proof,
    also written to `proof_path` if one was given.
    """

    satisfiable: bool
    solver: str
    trajectory: tuple[State, ...] | None
    proof_lines: tuple[str, ...]
    proof_path: str | None
    proof_bytes: int
    seconds: float


@dataclass(frozen=True)
class _ProofRun:
    """One proof-logging solver run: the model when SAT, the written proof when UNSAT."""

    sat: bool
    true_vars: set[int]
    proof: tuple[str, ...]
    proof_path: str | None
    proof_bytes: int
    seconds: float


def _run_with_proof(clauses: list[list[int]], solver_name: str,
                    proof_path: str | Path | None) -> _ProofRun:
    """Solve with a proof-logging python-sat solver; write the proof to `proof_path` if UNSAT."""
    from pysat.solvers import Solver

    t0 = time.perf_counter()
    with (Solver(name=solver_name, bootstrap_with=clauses, with_proof=True) as solver,
          pysat_interrupts()):
        sat = bool(solver.solve())
        model = solver.get_model() if sat else None
        proof = () if sat else tuple(solver.get_proof() or ())
    seconds = time.perf_counter() - t0
    true_vars = {lit for lit in model if lit > 0} if model is not None else set()
    text = "".join(line + "\n" for line in proof)
    written = None
    if proof_path is not None and not sat:
        Path(proof_path).write_text(text)
        written = str(proof_path)
    return _ProofRun(sat, true_vars, proof, written, len(text.encode()), seconds)


def solve_reach(cnf: ReachCnf, solver_name: str = "glucose4",
                proof_path: str | Path | None = None) -> ReachSolve:
    """Solve with a proof-logging python-sat solver; extract a trajectory or keep the proof."""
    run = _run_with_proof(cnf.clauses, solver_name, proof_path)
    trajectory = extract_trajectory(cnf, run.true_vars) if run.sat else None
    return ReachSolve(run.sat, solver_name, trajectory, run.proof, run.proof_path,
                      run.proof_bytes, run.seconds)


def extract_trajectory(cnf: ReachCnf, true_vars: set[int]) -> tuple[State, ...]:
    """Walk supports back from a true goal variable of a model: the states of a trajectory."""
    state_of = {v: key for key, v in cnf.var_of.items()}
    g = next((v for v in cnf.goal if v in true_vars), None)
    if g is None:
        raise ValueError("the model sets no goal variable")
    chain = [g]
    while state_of[chain[-1]][0] > 0:
        v = next((p for p in cnf.preds[chain[-1]] if p in true_vars), None)
        if v is None:
            raise ValueError(f"variable {chain[-1]} has no true predecessor in the model")
        chain.append(v)
    chain.reverse()
    states = [state_of[v][1] for v in chain]
    return (*states, cnf.arrivals[g][0])


# == the factored one-hot encoding ==========================================================
#
# The reachability-cut CNF above is refuted by unit propagation alone (its refutation is the
# forward closure of "supported" states), and so is any CNF with one variable per whole car
# state: "state at t -> one of its successors at t+1" is refuted by unit propagation as well
# (backward, dead states first). A solver's proof then has no lemma. The encoding below
# *factors* the state: per time step one-hot position, one-hot velocity per axis, a cell
# variable tied to its coordinates, and the progress bit, so that "this (cell, velocity)
# pair is impossible" is not a clause of the formula but something the solver must learn:
# its refutation needs search and the DRUP proof has real lemmas to check.

Row = tuple[int, ...]
"""A move-table row (x, y, x2, y2, layer, layer2, start, finish, start_before_finish)."""

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
    """The factored one-hot CNF of "the car arrives within `horizon` moves".

    Variables (t = moves made, 0..T): X(t, x), Y(t, y) one-hot coordinates; VX(t, v),
    VY(t, v) one-hot velocity components after move t; V(t, w) the 2D velocity chosen by
    move t; P(t, c) the car is alive (not yet arrived) on cell c = (x, y, layer) after t
    moves; G(t) the start line has been crossed; A(k) move k arrives; L(t) not arrived after
    t moves. `pos` maps (t, x, y, layer) to P's variable, `vel` (t, vx, vy) to V's,
    `arrive` k to A(k), `alive` t to L(t), for decoding a model; the goal is the unit
    clause -L(T) ("arrived within T moves").
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

    @property
    def literals(self) -> int:
        """Total number of literals over all clauses."""
        return sum(len(c) for c in self.clauses)


def _opening_allows(track: Track, move: int, w: tuple[int, int]) -> bool:
    """docs/rules.md: whether new velocity w is allowed as move `move` (1-based) by the opening."""
    op = track.opening
    if op is None or move > op.moves:
        return True
    if op.max_speed is not None and max(abs(w[0]), abs(w[1])) > op.max_speed:
        return False
    if op.straight:
        along_x = track.car.direction in ("+x", "-x")
        return (w[1] if along_x else w[0]) == 0
    return True


def cell_relaxation(track: Track, rows: Sequence[Row], horizon: int
                    ) -> list[set[tuple[tuple[int, int, int], int]]]:
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
    x0, y0 = track.car.position
    c0 = (x0, y0, track.car.layer)
    by: dict[tuple[int, int, int], list[tuple[int, Row]]] = {}
    for r in rows:
        by.setdefault((r[0], r[1], r[4]), []).append(
            (max(abs(r[2] - r[0]), abs(r[3] - r[1])), r))
    for lst in by.values():
        lst.sort(key=lambda e: e[0])

    def moves(c: tuple[int, int, int], t: int) -> list[Row]:
        out = []
        for speed, r in by.get(c, ()):
            if speed > t + 1:
                break
            if _opening_allows(track, t + 1, (r[2] - r[0], r[3] - r[1])):
                out.append(r)
        return out

    def after(r: Row, g: int) -> tuple[tuple[int, int, int], int] | None:
        """The (cell, progress) after move r from progress g; None when r arrives."""
        if r[7] and (g or r[8]):
            return None
        return (r[2], r[3], r[5]), 1 if r[6] else g

    fwd = [{(c0, 0)}]
    for t in range(horizon - 1):
        nxt = set()
        for c, g in fwd[t]:
            for r in moves(c, t):
                nxt_state = after(r, g)
                if nxt_state is not None:
                    nxt.add(nxt_state)
        fwd.append(nxt)
    alive: list[set[tuple[tuple[int, int, int], int]]] = [set() for _ in range(horizon)]
    for t in range(horizon - 1, -1, -1):
        later = alive[t + 1] if t + 1 < horizon else set()
        for c, g in fwd[t]:
            for r in moves(c, t):
                nxt_state = after(r, g)
                if nxt_state is None or nxt_state in later:
                    alive[t].add((c, g))
                    break
    return alive


def build_onehot_cnf(track: Track, rows: Sequence[Row], horizon: int, *,
                     backward: bool = True, cells: bool = True) -> OneHotCnf:
    """The factored one-hot CNF: satisfiable iff some trajectory arrives within `horizon`.

    `rows` is the allowed-move table (every geometrically valid move, with its line
    crossings); this function applies the kinematics (|a| <= 1, v' != 0), the opening
    rule by move number (exact: no state key), start-then-finish progress and arrival.
    With `backward`, a car that has not arrived must also satisfy the per-axis backward
    bound (its next line still reachable on each axis within the moves left), which is
    implied by arriving in time and makes refutations much shorter. With `cells`, the cell
    variables are restricted to `cell_relaxation` (walls and lines taken into account,
    velocity relaxed to a speed cap). Redundant per-axis clauses forbid (coordinate,
    velocity) pairs outside the forward in-grid reach; they shorten the proofs too.

    Every trajectory arriving within `horizon` moves satisfies the clauses (each clause
    is a rule it obeys), so UNSAT proves none exists; conversely a model decodes
    (`decode_onehot`) to a trajectory whose moves are table rows.
    """
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    T = horizon
    x0, y0 = track.car.position
    l0 = track.car.layer
    two_layers = track.layers == 2
    fx = _axis_forward(x0, track.width, T)
    fy = _axis_forward(y0, track.height, T)
    kin = kinematic_bounds(track, (x0, y0, 0, 0, l0, 0), T) if backward else None
    by_cell: dict[tuple[int, int, int], list[Row]] = {}
    for r in rows:
        by_cell.setdefault((r[0], r[1], r[4]), []).append(r)

    clauses: list[list[int]] = []
    add = clauses.append
    counter = [0]

    def new() -> int:
        counter[0] += 1
        return counter[0]

    xs = [{c for c, _ in fx[t]} for t in range(T + 1)]
    ys = [{c for c, _ in fy[t]} for t in range(T + 1)]
    X = [{x: new() for x in sorted(xs[t])} for t in range(T + 1)]
    Y = [{y: new() for y in sorted(ys[t])} for t in range(T + 1)]
    L = [new() for _ in range(T + 1)]
    G = [new() for _ in range(T)]
    A = {k: new() for k in range(1, T + 1)}
    lay = [new() for _ in range(T + 1)] if two_layers else []

    def layer_lit(t: int, layer: int) -> int:
        return lay[t] if layer == 1 else -lay[t]

    add([L[0]])
    add([-L[T]])
    add([-G[0]])
    for t in range(T):
        k = t + 1
        add([-L[t + 1], L[t]])
        add([-L[t + 1], -A[k]])
        add([L[t + 1], -L[t], A[k]])
        add([-A[k], L[t]])
        if t + 1 < T:
            add([-G[t], G[t + 1]])

    # cells: P(t, c) for endable cells with moves whose coordinates are reachable at t
    rel = cell_relaxation(track, rows, T) if cells else None
    P: list[dict[tuple[int, int, int], int]] = []
    for t in range(T):
        if t == 0:
            here = [(x0, y0, l0)] if (x0, y0, l0) in by_cell else []
        else:
            here = sorted(c for c in by_cell if c[0] in xs[t] and c[1] in ys[t])
            if rel is not None:
                here = [c for c in here if (c, 0) in rel[t] or (c, 1) in rel[t]]
        P.append({c: new() for c in here})
    if (x0, y0, l0) in P[0]:
        add([P[0][(x0, y0, l0)]])
    else:
        add([-L[0]])  # no valid move from the start at all

    # moves: the velocities each cell may choose at move t+1, and V(t+1, w)
    V: list[dict[tuple[int, int], int]] = [{}]
    choices: list[dict[tuple[int, int, int], list[Row]]] = []
    for t in range(T):
        ch: dict[tuple[int, int, int], list[Row]] = {}
        for c in P[t]:
            ok = []
            for r in by_cell[c]:
                w = (r[2] - r[0], r[3] - r[1])
                if not _opening_allows(track, t + 1, w):
                    continue
                if (r[2], w[0]) not in fx[t + 1] or (r[3], w[1]) not in fy[t + 1]:
                    continue
                if not r[7] and (t + 1 >= T or (r[2], r[3], r[5]) not in P[t + 1]):
                    continue  # a move that cannot arrive must end on a cell of time t+1
                ok.append(r)
            ch[c] = ok
        choices.append(ch)
        ws = sorted({(r[2] - r[0], r[3] - r[1]) for rs in ch.values() for r in rs})
        V.append({w: new() for w in ws})
    VX = [{}] + [{v: new() for v in sorted({w[0] for w in V[t]})} for t in range(1, T + 1)]
    VY = [{}] + [{v: new() for v in sorted({w[1] for w in V[t]})} for t in range(1, T + 1)]

    def amo(lits: list[int]) -> None:
        from pysat.card import CardEnc, EncType

        if len(lits) <= 6:
            for i in range(len(lits)):
                for j in range(i + 1, len(lits)):
                    add([-lits[i], -lits[j]])
            return
        enc = CardEnc.atmost(lits, 1, top_id=counter[0], encoding=EncType.seqcounter)
        counter[0] = max(counter[0], enc.nv)
        clauses.extend(enc.clauses)

    for t in range(T + 1):
        amo(list(X[t].values()))
        amo(list(Y[t].values()))
        if t >= 1:
            amo(list(VX[t].values()))
            amo(list(VY[t].values()))
    for t in range(1, T + 1):
        for (wx, wy), v in V[t].items():
            add([-v, VX[t][wx]])
            add([-v, VY[t][wy]])

    for t in range(T):
        # alive: on some cell, which fixes the coordinates and the layer
        add([-L[t], *P[t].values()])
        for (x, y, layer), p in P[t].items():
            add([-p, L[t]])
            add([-p, X[t][x]])
            add([-p, Y[t][y]])
            if two_layers:
                add([-p, layer_lit(t, layer)])
        # the coordinates move by the velocity of move t+1
        for axis_pos, axis_vel, nxt in ((X[t], VX[t + 1], X[t + 1]), (Y[t], VY[t + 1], Y[t + 1])):
            for c, cv in axis_pos.items():
                for v, vv in axis_vel.items():
                    tgt = nxt.get(c + v)
                    add([-cv, -vv, tgt] if tgt is not None else [-cv, -vv])
        # acceleration |a| <= 1 per axis (from rest at t = 0: the domain of VX(1) is -1..1)
        if t >= 1:
            for cur, nxt in ((VX[t], VX[t + 1]), (VY[t], VY[t + 1])):
                for v, vv in cur.items():
                    add([-L[t], -vv, *(nxt[v + a] for a in (-1, 0, 1) if v + a in nxt)])
        # the move: a valid row from the cell; layer, progress and arrival follow its flags
        f_cells: list[int] = []
        s_cells: list[int] = []
        for c, p in P[t].items():
            rs = choices[t][c]
            add([-p, *(V[t + 1][(r[2] - r[0], r[3] - r[1])] for r in rs)])
            if two_layers and t + 1 < T:
                ends = {r[5] for r in rs}
                if len(ends) == 1:
                    add([-p, layer_lit(t + 1, ends.pop())])
                else:
                    for r in rs:
                        add([-p, -V[t + 1][(r[2] - r[0], r[3] - r[1])], layer_lit(t + 1, r[5])])
            starts = [V[t + 1][(r[2] - r[0], r[3] - r[1])] for r in rs if r[6]]
            if t + 1 < T:
                for sv in starts:
                    add([-p, -sv, G[t + 1]])
                if starts:
                    s_cells.append(p)
                    add([-G[t + 1], G[t], -p, *starts])
            fin = [r for r in rs if r[7]]
            if fin:
                f_cells.append(p)
                k = t + 1
                add([-A[k], -p, -G[t], *(V[k][(r[2] - r[0], r[3] - r[1])] for r in fin)])
                add([-A[k], -p, G[t], *(V[k][(r[2] - r[0], r[3] - r[1])] for r in fin if r[8])])
        if t + 1 < T:
            add([-G[t + 1], G[t], *s_cells])
        add([-A[t + 1], *f_cells])

    for t in range(1, T + 1):
        for axis_pos, axis_vel, reach in ((X[t], VX[t], fx[t]), (Y[t], VY[t], fy[t])):
            for c, cv in axis_pos.items():
                for v, vv in axis_vel.items():
                    if (c, v) not in reach:
                        add([-cv, -vv])
    if rel is not None:
        for t in range(1, T):
            for c, p in P[t].items():
                if (c, 0) not in rel[t]:
                    add([-p, G[t]])
                if (c, 1) not in rel[t]:
                    add([-p, -G[t]])
    if kin is not None:
        for t in range(1, T):
            k = T - t
            for axis_pos, axis_vel, bnd in ((X[t], VX[t], kin.bx), (Y[t], VY[t], kin.by)):
                for c, cv in axis_pos.items():
                    for v, vv in axis_vel.items():
                        if (c, v) not in bnd[0][k]:
                            add([-L[t], G[t], -cv, -vv])
                        if (c, v) not in bnd[1][k]:
                            add([-L[t], -G[t], -cv, -vv])

    pos = {(t, *c): p for t in range(T) for c, p in P[t].items()}
    vel = {(t, *w): v for t in range(1, T + 1) for w, v in V[t].items()}
    return OneHotCnf(T, clauses, counter[0], pos, vel, A, tuple(L), backward, cells,
                     onehot_domain(backward, cells))


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
    run = _run_with_proof(cnf.clauses, solver_name, proof_path)
    positions = None
    error = ""
    if run.sat:
        try:
            positions = decode_onehot(cnf, run.true_vars)
        except ValueError as exc:
            error = str(exc)
    return OneHotSolve(run.sat, solver_name, positions, run.proof, run.proof_path,
                       run.proof_bytes, run.seconds, error)
