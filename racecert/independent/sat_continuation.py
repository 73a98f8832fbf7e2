"""Continuity of given states as SAT models, with checked proofs and replayed witnesses.

Question, for a *source* state s = (x, y, vx, vy, layer, progress) whose next move
is made with opening phase p0: can the car, from s, make a further arrival (a start-
then-finish under docs/rules.md, the opening rule still counted from the race's first
move)? The answer is decided three ways, all on the independent side:

1. **The continuation graph** (`ContinuationGraph`): the untimed closure of
   (state, phase) over the verify geometry's moves (`geometry_successors`:
   `racecert.independent.geometry.Geometry.move`, no speed cap, so every move is
   covered), arriving moves recorded, not followed. A breadth-first pass from each
   source gives its first continuation length d (one more than the distance to a
   state with an arriving move) or, when none is reachable, its eccentricity E (every
   state reachable from it is reached within E moves).
2. **A CNF** "a further arrival within H moves" (`build_continuation_cnf`): the
   reachability cut of `racecert.independent.sat` started from the source instead of
   the car at rest: one variable r(t, q) per time t < H and state q of the domain,
   r(0, source) (and not r(0, q) for the other states of layer 0), r(t, q) -> OR
   r(t-1, p) over the moves p -> q, and OR r(t, p) over the states with an arriving
   move (the goal). The domain at time t holds closure states of phase min(p0 + t, K)
   only, and only where a real continuation can be: within t moves of the source
   (any source, for a refutation) and, for a model, with an arrival still reachable
   by move H. Every real continuation of at most H moves stays inside it.
3. **Evidence**: a continuable source gets the CNF at H = d; its model is walked back
   to a continuation that the verify geometry replays move by move (it must first
   arrive at its last move). Any other source gets the CNF at H = E + 1, over every
   source's reach (the others set false at time 0, so the goal is not empty wherever
   another source's continuation fits in time), refuted, and the solver's DRUP proof
   is checked by `racecert.independent.drup`. A shortest continuation visits each
   state at its first distance from the source, so none within E + 1 moves means none
   at all.

Every solve is bounded by a conflict budget (`SolverBudgetExceeded`), the closure by a
state budget and each CNF by a variable budget (`ContinuationBudget`), so no call
runs unbounded. Disagreements between the three (a model that does not replay, a
rejected proof, a CNF and the graph that differ) are reported per source, never
hidden.

>>> # decide_continuations(track, [(19, 1, 4, 0, 0, 0)], phase=0)[0].continuable
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.drup import DrupResult, check_drup
from racecert.independent.geometry import Geometry, VState
from racecert.independent.race_rules import (
    ACCELS,
    OpeningRule,
    State,
    Successors,
)
from racecert.independent.sat import (
    DEFAULT_CONFLICT_BUDGET,
    ProofRun,
    ReachCnf,
    extract_trajectory,
    run_with_proof,
)
from racecert.model.track import Track

Node = tuple[State, int]
"""(state, phase): a node of the untimed continuation graph."""

DEFAULT_MAX_NODES = 1_000_000
"""Closure nodes the continuation graph may hold (pure Python: about 1.5 KB each with the
successor cache, measured on ocho; so at most about 1.5 GB)."""
DEFAULT_MAX_VARS = 5_000_000
"""Variables one continuation CNF may have."""


class ContinuationBudget(SizeBudgetExceeded):
    """The closure or a CNF would exceed its size budget (the message names the budget
    and the size reached)."""


def geometry_successors(track: Track) -> Successors:
    """The race rules' moves from (state, phase) by the verify geometry, cached per node.

    Every acceleration is tried (`Geometry.move`: opening rule, v' != 0, the grid, the
    cells touched, layers, line crossings, progress and arrival), so no speed bound
    limits which moves exist.
    """
    geometry = Geometry(track)
    cache: dict[Node, list[tuple[State, bool]]] = {}

    def successors(s: State, phase: int) -> list[tuple[State, bool]]:
        hit = cache.get((s, phase))
        if hit is not None:
            return hit
        out = []
        for accel in ACCELS:
            v = geometry.move(VState(*s, phase), accel)
            if v.valid and v.state is not None:
                n = v.state
                out.append(((n.x, n.y, n.vx, n.vy, n.layer, n.progress), v.arrives))
        cache[(s, phase)] = out
        return out

    return successors


@dataclass(frozen=True)
class SourceReach:
    """What the breadth-first pass from one source found: `first` is its first
    continuation length (None when no arrival is reachable), `eccentricity` the largest
    distance of a node reachable from it, `nodes` how many it reaches."""

    first: int | None
    eccentricity: int
    nodes: int


class ContinuationGraph:
    """The untimed closure of (state, phase) from the sources, with arriving nodes.

    `phase` is the sources' common opening phase (every optimal arrival has made m*
    moves, so they share min(m*, K)); `limit` is K.
    """

    def __init__(self, successors: Successors, sources: Sequence[State], phase: int,
                 limit: int, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.successors = successors
        self.phase, self.limit = phase, limit
        self.sources = tuple(dict.fromkeys(sources))
        self.adjacency: dict[Node, tuple[Node, ...]] = {}
        self.arriving: set[Node] = set()
        stack = [(s, phase) for s in self.sources]
        seen = set(stack)
        while stack:
            node = stack.pop()
            s, ph = node
            nxt_phase = min(ph + 1, limit)
            out = []
            for nxt, arrives in successors(s, ph):
                if arrives:
                    self.arriving.add(node)
                    continue
                m = (nxt, nxt_phase)
                out.append(m)
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
                    if len(seen) > max_nodes:
                        raise ContinuationBudget("the continuation closure", len(seen),
                                                 max_nodes, "states", at_least=True)
            self.adjacency[node] = tuple(dict.fromkeys(out))
        self.distance = self._distances([(s, phase) for s in self.sources])

    def __len__(self) -> int:
        return len(self.adjacency)

    def _distances(self, starts: list[Node]) -> dict[Node, int]:
        """Breadth-first distances from the nearest of `starts`."""
        dist = dict.fromkeys(starts, 0)
        queue = deque(starts)
        while queue:
            node = queue.popleft()
            d = dist[node] + 1
            for m in self.adjacency[node]:
                if m not in dist:
                    dist[m] = d
                    queue.append(m)
        return dist

    def reach(self, source: State) -> tuple[SourceReach, dict[Node, int]]:
        """First continuation length, eccentricity and reach of one source, and the
        distances from it."""
        dist = self._distances([(source, self.phase)])
        hits = [d for node, d in dist.items() if node in self.arriving]
        found = SourceReach(min(hits) + 1 if hits else None, max(dist.values()), len(dist))
        return found, dist

    def goal_distance(self) -> dict[Node, int]:
        """Per node from which an arrival is reachable: the fewest moves before its
        arriving move (0 for a node with an arriving move), by a backward pass."""
        back: dict[Node, list[Node]] = {}
        for node, out in self.adjacency.items():
            for m in out:
                back.setdefault(m, []).append(node)
        dist = dict.fromkeys(self.arriving, 0)
        queue = deque(self.arriving)
        while queue:
            node = queue.popleft()
            d = dist[node] + 1
            for p in back.get(node, ()):
                if p not in dist:
                    dist[p] = d
                    queue.append(p)
        return dist


def build_continuation_cnf(graph: ContinuationGraph, horizon: int, source: State,
                           distance: dict[Node, int], *, layer0: Sequence[State] = (),
                           goal_distance: dict[Node, int] | None = None,
                           max_vars: int = DEFAULT_MAX_VARS) -> ReachCnf:
    """The reachability cut "`source` arrives again within `horizon` moves".

    Layer 0 holds `source` and the other states of `layer0` (set false by unit
    clauses); the state q of phase min(p0 + t, K) gets a variable at time t >= 1 when
    `distance[q]` <= t and, with `goal_distance`, when its arrival is still possible in
    time (t + goal_distance[q] <= horizon - 1). Both are relaxations every real
    continuation of at most `horizon` moves stays inside (exact distances in the closure,
    from the source or from any source). See the module docstring for the clauses.
    """
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    by_phase: dict[int, list[tuple[int, State]]] = {}
    for (s, ph), d in distance.items():
        if d < horizon:
            last = horizon - 1
            if goal_distance is not None:
                if (s, ph) not in goal_distance:
                    continue
                last -= goal_distance[(s, ph)]
            if d <= last:
                by_phase.setdefault(ph, []).append((d, s))
    for entries in by_phase.values():
        entries.sort(key=lambda e: e[1])
    var_of: dict[tuple[int, State], int] = {}
    layers: list[list[State]] = []
    for t in range(horizon):
        ph = min(graph.phase + t, graph.limit)
        if t == 0:
            layer = [source, *(s for s in dict.fromkeys(layer0) if s != source)]
        else:
            layer = [s for d, s in by_phase.get(ph, ()) if d <= t and (
                goal_distance is None or t + goal_distance[(s, ph)] <= horizon - 1)]
        for s in layer:
            var_of[(t, s)] = len(var_of) + 1
        if len(var_of) > max_vars:
            raise ContinuationBudget(f"the continuation CNF for H = {horizon}", len(var_of),
                                     max_vars, "variables", at_least=True)
        layers.append(layer)
    preds: dict[int, list[int]] = {v: [] for v in var_of.values()}
    goal: list[int] = []
    arrivals: dict[int, list[State]] = {}
    for t in range(horizon):
        ph = min(graph.phase + t, graph.limit)
        for p in layers[t]:
            vp = var_of[(t, p)]
            for nxt, arrives in graph.successors(p, ph):
                if arrives:
                    if vp not in arrivals:
                        goal.append(vp)
                    arrivals.setdefault(vp, []).append(nxt)
                    continue
                vq = var_of.get((t + 1, nxt))
                if vq is not None:
                    preds[vq].append(vp)
    clauses: list[list[int]] = [[var_of[(0, source)]]]
    clauses.extend([-var_of[(0, s)]] for s in layers[0][1:])
    clauses.extend([-v, *preds[v]] for (t, _), v in var_of.items() if t > 0)
    clauses.append(goal)
    return ReachCnf(horizon, clauses, len(var_of), var_of, preds, goal, arrivals,
                    "states of the untimed continuation closure (verify geometry) at the "
                    "phase of time t, within t moves of a source")


@dataclass(frozen=True)
class SourceVerdict:
    """One source's answer and its evidence.

    `continuable`: True (a model replayed: `moves` is its length), False (the CNF at
    `horizon` refuted with a checked proof) or None when the evidence failed, see
    `problem` (a disagreement inside the method). `proof_path` when written.
    """

    source: State
    continuable: bool | None
    horizon: int
    moves: int | None
    reach: SourceReach
    evidence: str
    problem: str = ""
    proof_path: str | None = None
    proof_lemmas: int = 0


@dataclass(frozen=True)
class ContinuationWork:
    """What deciding a set of sources cost: closure nodes, CNF sizes, solves."""

    nodes: int
    variables: int
    clauses: int
    solves: int
    proofs_checked: int

    def __str__(self) -> str:
        return (f"{self.nodes:,} closure states; {self.solves} SAT solves over "
                f"{self.variables:,} variables and {self.clauses:,} clauses; "
                f"{self.proofs_checked} DRUP proofs checked")


def decide_continuations(track: Track, sources: Sequence[State], phase: int, *,
                         successors: Successors | None = None, solver: str = "glucose4",
                         conflict_budget: int = DEFAULT_CONFLICT_BUDGET,
                         max_nodes: int = DEFAULT_MAX_NODES, max_vars: int = DEFAULT_MAX_VARS,
                         proof_dir: str | Path | None = None, proof_stem: str = "continuation",
                         progress: Callable[[int, int], None] | None = None
                         ) -> tuple[list[SourceVerdict], ContinuationWork]:
    """Decide every source (see the module docstring); verdicts in the order given.

    A source the closure says continues gets the CNF at H = its first continuation
    length, over the states that can lie on such a continuation (distance from it and
    to an arrival both fit), and its model is replayed. Any other gets the CNF at
    H = E + 1 over every state within t moves of any source (all sources at time 0,
    the others set false), refuted with a checked proof: a formula whose goal clause
    is not empty wherever another source's continuation fits in time.

    Raises `ContinuationBudget` or `SolverBudgetExceeded` when a budget runs out.
    With `proof_dir`, each refuted CNF is written there in DIMACS beside its DRUP proof.
    `progress(decided, total)` is called before each source is decided (for a display).
    """
    succ = successors or geometry_successors(track)
    limit = OpeningRule.of(track).moves
    graph = ContinuationGraph(succ, sources, phase, limit, max_nodes)
    geometry = Geometry(track)
    goal_distance = graph.goal_distance()
    work = {"variables": 0, "clauses": 0, "solves": 0, "proofs": 0}
    decided: dict[State, SourceVerdict] = {}
    stopped = 0
    for n, s in enumerate(graph.sources):
        if progress is not None:
            progress(n, len(graph.sources))
        reach, dist = graph.reach(s)
        if reach.first is not None:
            cnf = build_continuation_cnf(graph, reach.first, s, dist,
                                         goal_distance=goal_distance, max_vars=max_vars)
            path = None
        else:
            cnf = build_continuation_cnf(graph, reach.eccentricity + 1, s, graph.distance,
                                         layer0=graph.sources, max_vars=max_vars)
            stopped += 1
            path = (None if proof_dir is None
                    else Path(proof_dir) / f"{proof_stem}-{stopped}.drup")
        work["variables"] += cnf.nvars
        work["clauses"] += len(cnf.clauses)
        work["solves"] += 1
        run = run_with_proof(cnf.clauses, solver, path, conflict_budget)
        if run.sat:
            try:
                model = extract_trajectory(cnf, run.true_vars)
            except ValueError as exc:  # only a corrupted CNF has such models
                decided[s] = SourceVerdict(s, None, cnf.horizon, None, reach,
                                           "a model that is no continuation",
                                           f"the model does not decode: {exc}")
                continue
            decided[s] = _judge_model(geometry, s, phase, reach, cnf.horizon, model)
            continue
        if reach.first is not None:
            decided[s] = _judge_model(geometry, s, phase, reach, cnf.horizon, None)
            continue
        drup = check_drup(cnf.clauses, list(run.proof))
        work["proofs"] += 1
        decided[s] = _judge_refutation(s, reach, cnf, run, drup)
    total = ContinuationWork(len(graph), work["variables"], work["clauses"], work["solves"],
                             work["proofs"])
    return [decided[s] for s in sources], total


def _judge_refutation(source: State, reach: SourceReach, cnf: ReachCnf, run: ProofRun,
                      drup: DrupResult) -> SourceVerdict:
    """No continuation: the CNF at H = E + 1 is refuted and the checker accepts the proof."""
    empty = ("; its goal clause is empty: no state of the domain has an arriving move in time"
             if not cnf.goal else "")
    evidence = (f"no continuation within H = {cnf.horizon} = E + 1 moves (E = "
                f"{reach.eccentricity}: every state it reaches is reached by then): "
                f"{cnf.nvars:,} vars, {len(cnf.clauses):,} clauses UNSAT, DRUP proof "
                f"{len(run.proof)} lines, checker: {drup.reason}{empty}")
    return SourceVerdict(source, False if drup.verified else None, cnf.horizon, None, reach,
                         evidence, "" if drup.verified else f"proof rejected: {drup.reason}",
                         run.proof_path, drup.lemmas_checked)


def _judge_model(geometry: Geometry, source: State, phase: int, reach: SourceReach,
                 horizon: int, model: tuple[State, ...] | None) -> SourceVerdict:
    """A model's trajectory must start at the source and replay: first arrival at its end."""
    if model is None:
        return SourceVerdict(source, None, horizon, None, reach,
                             f"the CNF within H = {horizon} moves is UNSAT",
                             f"the closure reaches an arrival in {reach.first} moves but the "
                             f"CNF within {horizon} has no model")
    positions = [(s[0], s[1]) for s in model]
    moves = len(positions) - 1
    if model[0] != source:
        return SourceVerdict(source, None, horizon, moves, reach, "model from another source",
                             f"the model starts at {model[0]}, not at the source")
    ok, why = geometry.replay(positions, VState(*source, phase))
    evidence = (f"a model within H = {horizon} moves: a continuation of {moves} moves "
                f"replayed by the verify geometry: {why}")
    if not ok:
        return SourceVerdict(source, None, horizon, moves, reach, evidence,
                             f"the model's continuation does not replay: {why}")
    if reach.first is None:
        return SourceVerdict(source, True, horizon, moves, reach, evidence,
                             "the closure reaches no arrival but the CNF has a model")
    return SourceVerdict(source, True, horizon, moves, reach, evidence)
