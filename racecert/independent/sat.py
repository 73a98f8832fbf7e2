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
certifies the lower bound. The second encoding,
`racecert.independent.onehot.build_onehot_cnf` (factored one-hot coordinates,
velocities and cells), needs search: its proofs have lemmas for the checker to
verify; it shares this module's kinematic bounds and proof-logging solve.

Which states get variables (the *domain*), to keep the CNF small, is a sound
relaxation derived from the rules, never from the BFS oracle's states:

- ``closure``: states reachable from s0 under the move table at *any* time
  (untimed; the opening phase min(t, K) is tracked), computed here;
- ``kinematic``: per axis, ignoring walls and the other axis, (c, v) at time t
  must be reachable from (c0, 0) in t moves of acceleration -1/0/+1 inside
  the grid, and must allow a move across the next line still to cross (start
  line while progress = 0, finish line after) within T - t moves.

The move table is an argument (`Successors`, e.g.
`racecert.independent.race_rules.table_successors`): this module never decides
move validity, the opening rule or arrival itself, so the certificate rests on
whatever independent geometry built the table.

>>> # cnf = build_reach_cnf(track, successors, s0, horizon=5); solve_reach(cnf)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from racecert.independent.interrupt import pysat_interrupts, pysat_solve_limited
from racecert.independent.race_rules import State, Successors, phase_after, phase_at
from racecert.model.track import Line, Track

RESTRICTION = ("variables restricted to the untimed closure of the move table from the "
               "initial state intersected with per-axis kinematic bounds (derived from "
               "the rules; independent of the BFS oracle)")


# -- the kinematic relaxation ----------------------------------------------------------


def axis_forward(c0: int, n: int, horizon: int) -> list[set[tuple[int, int]]]:
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


def _axis_backward(target: Callable[[int, int], bool], n: int, horizon: int,
                   vmax: int | None = None) -> list[set[tuple[int, int]]]:
    """bw[k] = {(c, v)} from which a target move happens within k moves (one axis), over
    the speeds |v| <= `vmax` (default: the grid size, every speed)."""
    vmax = n if vmax is None else min(n, vmax)
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
    fx = axis_forward(s0[0], w, horizon)
    fy = axis_forward(s0[1], h, horizon)
    # speeds a trajectory of `horizon` moves from s0 can have (|a| <= 1 per move): the
    # backward sets are only ever asked about these (a corridor 1000 wide: 46, not 1000)
    vmax = max(abs(s0[2]), abs(s0[3])) + horizon + 1
    bx = tuple(_axis_backward(_axis_targets(line, "x", w), w, horizon, vmax)
               for line in (track.start, track.finish))
    by = tuple(_axis_backward(_axis_targets(line, "y", h), h, horizon, vmax)
               for line in (track.start, track.finish))
    return KinematicBounds(fx, fy, bx, by, horizon)  # type: ignore[arg-type]


# -- the untimed closure -----------------------------------------------------------------


class ClosureCapExceeded(ValueError):
    """`untimed_closure` passed its `cap`: the search stopped there."""


def untimed_closure(successors: Successors, s0: State, phase_limit: int,
                    cap: int | None = None) -> set[tuple[State, int]]:
    """Every (state, phase) reachable from (s0, 0) through non-arriving moves, at any time.

    `cap` bounds the number of states (`ClosureCapExceeded` beyond it), so a huge track
    fails clearly instead of exhausting memory.
    """
    seen = {(s0, 0)}
    stack = [(s0, 0)]
    while stack:
        s, ph = stack.pop()
        nph = phase_after(ph, phase_limit)
        for nxt, arrives in successors(s, ph):
            if arrives or (nxt, nph) in seen:
                continue
            seen.add((nxt, nph))
            stack.append((nxt, nph))
            if cap is not None and len(seen) > cap:
                raise ClosureCapExceeded(f"untimed closure exceeds {cap} states")
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
            layer = [s for s in by_phase.get(phase_at(t, phase_limit), []) if kin.allows(t, s)]
        for s in layer:
            var_of[(t, s)] = len(var_of) + 1
        layers.append(layer)
    preds: dict[int, list[int]] = {v: [] for v in var_of.values()}
    goal: list[int] = []
    arrivals: dict[int, list[State]] = {}
    for t in range(horizon):
        ph = phase_at(t, phase_limit)
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
class ProofRun:
    """One proof-logging solver run: the model when SAT, the written proof when UNSAT."""

    sat: bool
    true_vars: set[int]
    proof: tuple[str, ...]
    proof_path: str | None
    proof_bytes: int
    seconds: float


DEFAULT_CONFLICT_BUDGET = 20_000_000
"""Conflicts one SAT solve may use (a deterministic budget: the same verdict on any
machine); past it the solve raises `SolverBudgetExceeded`."""


class SolverBudgetExceeded(Exception):
    """A SAT solve used its whole conflict budget without an answer."""


def write_dimacs(clauses: list[list[int]], path: str | Path) -> None:
    """The formula in DIMACS CNF, so that an outside checker (drat-trim) can re-check a proof."""
    nvars = max((abs(lit) for c in clauses for lit in c), default=0)
    with open(path, "w") as f:
        f.write(f"p cnf {nvars} {len(clauses)}\n")
        f.writelines(" ".join(map(str, c)) + " 0\n" for c in clauses)


def run_with_proof(clauses: list[list[int]], solver_name: str,
                   proof_path: str | Path | None,
                   conflict_budget: int = DEFAULT_CONFLICT_BUDGET) -> ProofRun:
    """Solve with a proof-logging python-sat solver within `conflict_budget` conflicts.

    When UNSAT and `proof_path` is given, the DRUP proof is written there and the formula
    beside it in DIMACS (same name, suffix ``.cnf``). Raises `SolverBudgetExceeded` when the
    budget runs out.
    """
    from pysat.solvers import Solver

    t0 = time.perf_counter()
    with (Solver(name=solver_name, bootstrap_with=clauses, with_proof=True) as solver,
          pysat_interrupts()):
        solver.conf_budget(conflict_budget)
        answer = pysat_solve_limited(solver)
        if answer is None:
            raise SolverBudgetExceeded(f"{solver_name} used its budget of {conflict_budget:,} "
                                       "conflicts")
        sat = bool(answer)
        model = solver.get_model() if sat else None
        proof = () if sat else tuple(solver.get_proof() or ())
    seconds = time.perf_counter() - t0
    true_vars = {lit for lit in model if lit > 0} if model is not None else set()
    text = "".join(line + "\n" for line in proof)
    written = None
    if proof_path is not None and not sat:
        Path(proof_path).write_text(text)
        write_dimacs(clauses, Path(proof_path).with_suffix(".cnf"))
        written = str(proof_path)
    return ProofRun(sat, true_vars, proof, written, len(text.encode()), seconds)


def solve_reach(cnf: ReachCnf, solver_name: str = "glucose4",
                proof_path: str | Path | None = None) -> ReachSolve:
    """Solve with a proof-logging python-sat solver; extract a trajectory or keep the proof."""
    run = run_with_proof(cnf.clauses, solver_name, proof_path)
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
