"""Green and blue by CP-SAT over the moves of an optimal layered DAG, not the closure.

The time-indexed model of `racecert.independent.cpsat` poses every T-move trajectory of
the reachable-move closure, which outgrows any budget on open areas (llanura: 161,353
table rows). The optimal DAG is far smaller there (llanura: 19,903 moves), and it holds
exactly the optimal trajectories: every m*-move path from the initial state to an
arriving move that uses only moves of a correct DAG is an optimal trajectory, and the
DAG holds every optimal one. So a flow model over its moves has exactly the optimal
trajectories as solutions:

- one Boolean per DAG move (step t, from-state, to-state) and per arriving move;
- one unit of flow out of the initial state, exactly one move per step, and flow
  conservation at every DAG state (moves in = moves out);
- one read variable per step, the index of the state the chosen move reaches (its
  position is looked up in the DAG), so a solution is read in T values.

The band enumeration (every path within the error band of the optimum) would, with the
bare cost constraint, wander through the DAG's astronomically many paths: a linear bound
on the total cannot see that a prefix already has no completion inside the band. So the
band adds, per step t, the implied constraint

    P_t + c(e) + h(dst(e)) <= B   for the move e chosen at step t,

with P_t the cost of the first t moves and h a *potential*: a lower bound on the cost of
any completion from a state (green: the scaled length; blue: the deficit K - w per move
against the largest weight K, so that "length >= bound" reads "deficit <= T*K - bound").
h is the exact least cost-to-go by a backward pass, and is then checked to be
dual-feasible (h(src) <= c(e) + h(dst) on every move, h <= c on every arriving move):
by telescoping any such h is a lower bound, so the constraints remove no trajectory of
the band, only dead ends. The enumeration then branches step by step (a fixed search).
The same checked potential bounds the objective before the optimisation (the cost is at
least h(start); for blue the deficit), with a hint of a DAG path attaining it, so CP-SAT
meets the proven bound at its first solution instead of searching the flow model.

`racecert.independent.cpsat_lengths.extreme_length` optimises the scaled length over it
and decides the error band exactly. What this confirms is "CP-SAT over this DAG": the DAG
is an input (the independent search's, `racecert.independent.search`), not re-derived
from the rules, so a wrong DAG would be optimised faithfully; the count certificate and
the other checks of the search are what vouch for the DAG.

>>> import numpy as np
>>> one = np.zeros(1, dtype=np.int64)
>>> dag = LayeredDag((one,), (one,), (), one, one, np.array([1]), one)
>>> r = extreme_length(DagLengths(dag), "green", budget=10.0)
>>> r.status, str(r.length), r.ties
('optimal', '1', 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from racecert.independent.cpsat_lengths import Weighted, extreme_length, move_weight
from racecert.independent.dag import LayeredDag

__all__ = ["DagLengths", "extreme_length"]


def _groups(index: np.ndarray, size: int) -> list[np.ndarray]:
    """For each value 0..size-1, the positions of `index` holding it."""
    order = np.argsort(index, kind="stable")
    cuts = np.searchsorted(index[order], np.arange(size + 1))
    return [order[cuts[i]:cuts[i + 1]] for i in range(size)]


@dataclass(frozen=True)
class DagLengths:
    """A `LayeredDag` (positions view) as a `cpsat_lengths.LengthModel`: its solutions are
    the DAG's m*-move paths from the initial state through an arriving move, each once."""

    dag: LayeredDag

    @property
    def horizon(self) -> int:
        return self.dag.moves

    @property
    def moves(self) -> int:
        """Booleans of the model: the DAG's moves between layers plus its arriving moves."""
        return sum(len(s) for s, _ in self.dag.edges) + len(self.dag.arrive_src)

    def _steps(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Per step t = 0..T-1: (src, dst, dx, dy) of its moves; the last step's dst
        indexes the arriving moves."""
        d = self.dag
        out = []
        for t, (src, dst) in enumerate(d.edges):
            dx, dy = d.displacement(t)
            out.append((src, dst, dx, dy))
        dx, dy = d.arrival_displacement()
        out.append((d.arrive_src, np.arange(len(d.arrive_src), dtype=np.int64), dx, dy))
        return out

    def weighted(self) -> Weighted:
        d = self.dag
        md = cp_model.CpModel()
        cache: dict[tuple[int, int], int] = {}
        bools: list[list[cp_model.IntVar]] = []
        all_b: list[cp_model.IntVar] = []
        all_w: list[int] = []
        read: list[cp_model.IntVar] = []
        steps = self._steps()
        for t, (_, dst, dx, dy) in enumerate(steps):
            b = [md.NewBoolVar(f"e{t}_{i}") for i in range(len(dst))]
            bools.append(b)
            all_b += b
            for a, c in zip(dx.tolist(), dy.tolist(), strict=True):
                w = cache.get((a, c))
                if w is None:
                    w = cache[(a, c)] = move_weight(a, c)
                all_w.append(w)
            md.AddExactlyOne(b)  # one move per step (implied by the flow; helps search)
            reached = md.NewIntVar(0, max(int(dst.max(initial=0)), 0), f"s{t + 1}")
            md.Add(reached == cp_model.LinearExpr.WeightedSum(b, dst.tolist()))
            read.append(reached)
        for t in range(1, len(steps)):  # conservation at the states of layer t
            n = len(d.xs[t])
            ins = _groups(steps[t - 1][1], n)
            outs = _groups(steps[t][0], n)
            bin_, bout = bools[t - 1], bools[t]
            for i in range(n):
                md.Add(sum(bin_[j] for j in ins[i].tolist())
                       == sum(bout[j] for j in outs[i].tolist()))
        # a variable, so that a bound on it (`optimise`) bounds the objective
        cost = md.NewIntVar(0, max(all_w, default=0) * len(steps), "cost")
        md.Add(cost == cp_model.LinearExpr.WeightedSum(all_b, all_w))
        md.AddDecisionStrategy(all_b, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        weights, at = [], 0
        for b in bools:
            weights.append(np.asarray(all_w[at:at + len(b)], dtype=np.int64))
            at += len(b)
        p = _Pruning(md, cost, bools, steps, weights, [len(x) for x in d.xs])
        return Weighted(md, cost, read, self._positions, p.band, fixed_search=True,
                        optimise=p.optimise, presolve=False)

    def _positions(self, vals: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        d = self.dag
        last = len(vals) - 1
        out = [d.start]
        for t, i in enumerate(vals):
            out.append((int(d.arrive_x[i]), int(d.arrive_y[i])) if t == last
                       else (int(d.xs[t + 1][i]), int(d.ys[t + 1][i])))
        return tuple(out)


def potential(steps: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
              costs: list[np.ndarray], sizes: list[int], unreachable: int) -> list[np.ndarray]:
    """Per layer t, the least cost from each state to an arrival (`unreachable` where none),
    checked dual-feasible: h(src) <= c(e) + h(dst) on every move (h = 0 after arriving).

    Raises ValueError when the check fails (then the pruning would not be implied).
    """
    T = len(steps)
    h = [np.full(n, unreachable, dtype=np.int64) for n in sizes]
    nxt = np.zeros(len(steps[-1][1]), dtype=np.int64)
    for t in range(T - 1, -1, -1):
        src, dst = steps[t][0], steps[t][1]
        via = np.minimum(costs[t] + nxt[dst], unreachable)
        np.minimum.at(h[t], src, via)
        nxt = h[t]
    for t in range(T):
        src, dst = steps[t][0], steps[t][1]
        after = h[t + 1][dst] if t + 1 < T else np.zeros(len(dst), dtype=np.int64)
        if (h[t][src] > costs[t] + after).any():
            raise ValueError(f"the potential is not dual-feasible at step {t}")
    return h


class _Pruning:
    """The implied constraints of the module docstring, over one built model."""

    def __init__(self, md: cp_model.CpModel, cost: cp_model.IntVar,
                 bools: list[list[cp_model.IntVar]],
                 steps: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
                 weights: list[np.ndarray], sizes: list[int]) -> None:
        self.md, self.cost, self.bools, self.steps, self.sizes = md, cost, bools, steps, sizes
        self.weights = weights
        self.k = max(int(w.max(initial=0)) for w in weights)  # the largest weight

    def _costs(self, which: str) -> list[np.ndarray]:
        """Per step, each move's cost: its weight (green) or its deficit k - w (blue)."""
        return self.weights if which == "green" else [self.k - w for w in self.weights]

    def _to_cost(self, which: str, value: int) -> int:
        """A total weight as a total cost (green) or total deficit (blue), and back."""
        return value if which == "green" else len(self.steps) * self.k - value

    def optimise(self, which: str) -> None:
        """The objective's bound proven by the checked potential (green: weight >= h(start);
        blue: deficit >= h(start)), and a hint: a path of the DAG that attains it."""
        costs = self._costs(which)
        cap = int(sum(int(c.max(initial=0)) for c in costs)) + 1
        h = potential(self.steps, costs, self.sizes, cap)
        least = int(h[0][0])
        if which == "green":
            self.md.Add(self.cost >= least)
        else:
            self.md.Add(self.cost <= self._to_cost(which, least))
        cur, T = 0, len(self.steps)
        for t, (src, dst, _, _) in enumerate(self.steps):
            after = h[t + 1][dst] if t + 1 < T else np.zeros(len(dst), dtype=np.int64)
            ok = np.nonzero((src == cur) & (costs[t] + after == h[t][cur]))[0]
            if len(ok) == 0:
                return  # no path attains it: the bound stands, CP-SAT searches unhinted
            j = int(ok[0])
            for i, b in enumerate(self.bools[t]):
                self.md.AddHint(b, i == j)
            cur = int(dst[j])

    def band(self, which: str, bound: int) -> None:
        """Per step t: P_t + c(e) + h(dst(e)) <= the band's limit for the chosen move e."""
        T = len(self.steps)
        costs, limit = self._costs(which), self._to_cost(which, bound)
        h = potential(self.steps, costs, self.sizes, limit + 1)
        prefix: cp_model.LinearExprT = 0
        for t in range(T):
            dst = self.steps[t][1]
            after = h[t + 1][dst] if t + 1 < T else np.zeros(len(dst), dtype=np.int64)
            coef = np.minimum(costs[t] + after, limit + 1).tolist()
            self.md.Add(prefix + cp_model.LinearExpr.WeightedSum(self.bools[t], coef) <= limit)
            p = self.md.NewIntVar(0, limit, f"prefix{t + 1}")
            self.md.Add(p == prefix + cp_model.LinearExpr.WeightedSum(self.bools[t],
                                                                      costs[t].tolist()))
            prefix = p
