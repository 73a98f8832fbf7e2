"""Continuity of optimal arrivals (docs/continuity.md; docs/continuity.md).

A final state is *continuable* when some trajectory from it crosses S and then
F again, i.e. makes a further arrival under the race's own rules. Two variants
are reported for every arriving move of the optimal DAG:

- **race rule**: the arrived state as the rules leave it; its progress field is
  1 exactly when the arriving move crossed S after F, so that S crossing counts.
- **editor certification** (docs/formal-limits.md, limit 6): from the final kinematic state a
  *later* S crossing is required: the same state with progress 0.

Editor-continuable implies race-continuable (progress 1 only adds arrivals).

All final states are settled together: one multi-source forward exploration of
the exact state graph from every distinct final state (both variants), then a
backward fixed point "can still arrive" over it (`racecert.oracle.laps`). The
answers are memoised, so the later search for m_cont — the first depth with a
race-continuable arrival when none at m* continues — reuses them.

On a stage (computed aptitude) continuity is not applicable: `applicable` is
False and the pipeline drops the component.

The continuation keeps the opening rule: the arrived state carries its phase
min(m*, K), so when m* < K the next moves m*+1..K still obey the rule (the
literal reading of "moves 1..K" of the race; docs/continuity.md).

With the editor key the m_cont search can find nothing on a circuit: a
continuable arrival may need a slower first lap whose states the phase-less
key has all seen earlier, in a more restricted phase. Then `m_cont` is None
and `m_cont_exact` holds the exact key's m_cont beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from racecert.model.budget import StateBudget
from racecert.model.rules import RuleProfile, StateArrays, VectorRaceRules
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, layered_bfs
from racecert.oracle.laps import LapAptitude, can_arrive, exact_codec, explore, lap_aptitude

MContNullReason = Literal["stage", "optimal-arrival-continues", "editor-key-finds-none"]
"""Why m_cont is None: continuity does not apply (a stage); some optimal arrival
continues (m_cont is not needed); or the editor key found no continuable arrival on a
circuit (each continuable first lap passes a state that key first reached earlier,
still under the opening rule; `Continuity.m_cont_exact` has the exact key's m_cont)."""


CHUNK_ARRIVALS = 1 << 20
"""Arriving moves asked about at a time (`continuity`)."""


@dataclass(frozen=True, eq=False)
class Continuity:
    """Continuity of the m* arrivals, aligned with `bfs.dag.arrive_src` / `arrive_state`.

    `race` and `editor` are read-only bool arrays, one flag per arrival (a large open
    area has tens of millions: a tuple of bools costs 8 bytes a flag); so two results are
    equal only if they are the same object (compare their fields).

    `continuable_count` (race rule) and `continuable_count_editor` count optimal
    trajectories (exact ints); `percent` = continuable_count / optimal_count,
    always over the m* arrivals. `m_cont` is None when some optimal arrival is
    race-continuable (or continuity is not applicable); otherwise it is the first
    depth with a race-continuable arrival and `cont_bfs` the layered BFS to it.
    With the editor key that search can find nothing on a circuit (the key's
    known limit, see the module docstring): then `m_cont` is None and
    `m_cont_exact` is the exact key's m_cont (otherwise `m_cont_exact` is None).
    """

    applicable: bool
    race: np.ndarray
    editor: np.ndarray
    continuable_count: int
    continuable_count_editor: int
    percent: Fraction
    m_cont: int | None
    cont_bfs: BfsResult | None
    states_explored: int
    m_cont_exact: int | None = None

    @property
    def m_cont_null_reason(self) -> MContNullReason | None:
        """Why `m_cont` is None (None when it is a depth); see `MContNullReason`."""
        if self.m_cont is not None:
            return None
        if not self.applicable:
            return "stage"
        if np.any(self.race):
            return "optimal-arrival-continues"
        return "editor-key-finds-none"


class ContinuationOracle:
    """Memoised "can a further arrival be made from this exact state?".

    Each call explores forward from the states not yet settled (already settled
    ones are leaves), settles everything it explored, and remembers it.
    """

    def __init__(self, track: Track, rules: RuleProfile | None = None,
                 budget: StateBudget | None = None) -> None:
        self.track = track
        self.rules = rules or VectorRaceRules(track)
        self.budget = budget
        self.codec = exact_codec(track, self.rules)
        self._keys = np.zeros(0, dtype=np.int64)
        self._vals = np.zeros(0, dtype=bool)
        self.states_explored = 0

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(self._keys) == 0:
            return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=bool)
        pos = np.searchsorted(self._keys, keys)
        pos[pos == len(self._keys)] = 0
        hit = self._keys[pos] == keys
        return hit, self._vals[pos] & hit

    def can_arrive(self, states: StateArrays) -> np.ndarray:
        """Per state: some trajectory from it arrives (a further S-then-F)."""
        if len(states) == 0:
            return np.zeros(0, dtype=bool)
        keys = self.codec.encode(states)
        known, _ = self._lookup(keys)
        if not known.all():
            ex = explore(self.rules, self.codec, states.take(~known), known=self._lookup,
                         budget=self.budget)
            good = can_arrive(ex)
            fresh = ~ex.leaf
            self.states_explored += int(fresh.sum())
            k = np.concatenate([self._keys, ex.keys[fresh]])
            v = np.concatenate([self._vals, good[fresh]])
            order = np.argsort(k, kind="stable")
            self._keys, self._vals = k[order], v[order]
        return self._lookup(keys)[1]


def continuity(track: Track, bfs: BfsResult, aptitude: LapAptitude | None = None,
               rules: RuleProfile | None = None, budget: StateBudget | None = None
               ) -> Continuity:
    """Race-rule and editor continuity of every optimal arriving move, and m_cont.

    `aptitude` (from `lap_aptitude`) is computed here if needed and not given:
    it is consulted when no optimal arrival continues, to tell a circuit
    with no optimal continuation (m_cont is then searched) from a stage. When it
    is given and says stage, nothing is explored: on a stage no trajectory arrives
    twice (the lap search is exhaustive, the topological precondition a relaxation),
    so no arrival continues in either variant, and the exploration from the final
    states (on a large open stage, every state behind the finish line) is skipped.
    `budget` bounds each exploration and the m_cont search.
    """
    if not bfs.reachable or bfs.dag is None:
        raise ValueError("continuity needs a reachable BFS result with its optimal DAG")
    dag = bfs.dag
    oracle = ContinuationOracle(track, rules, budget)
    n = len(dag.arrive_src)
    if aptitude is not None and aptitude.kind == "stage":
        none = np.zeros(n, dtype=bool)
        none.flags.writeable = False
        return Continuity(False, none, none, 0, 0, Fraction(0), None, None, 0)
    race, editor = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
    # both variants of the arrivals a chunk at a time (a large circuit has millions: each
    # state in full is 28 bytes); the oracle remembers what it settled, so the states it
    # explores and its answers are the same as in one call
    for lo in range(0, n, CHUNK_ARRIVALS):
        arrived = dag.arrive_state.take(slice(lo, lo + CHUNK_ARRIVALS))
        m = len(arrived)
        as_editor = StateArrays(*arrived.fields()[:5], np.zeros(m, dtype=np.int32),
                                arrived.phase)
        both = oracle.can_arrive(StateArrays.concat([arrived, as_editor]))
        race[lo: lo + m], editor[lo: lo + m] = both[:m], both[m:]
    race.flags.writeable = editor.flags.writeable = False
    counts = bfs.arrival_counts
    if len(counts) != n:
        raise ValueError("bfs.arrival_counts must be aligned with the DAG's arriving moves")
    c_race, c_editor = counts.total(race), counts.total(editor)
    percent = Fraction(c_race, bfs.optimal_count)
    if race.any():
        return Continuity(True, race, editor, c_race, c_editor, percent, None, None,
                          oracle.states_explored)
    apt = aptitude or lap_aptitude(track, rules, budget)
    if apt.kind == "stage":
        return Continuity(False, race, editor, 0, 0, Fraction(0), None, None,
                          oracle.states_explored)
    cont = layered_bfs(track, bfs.mode, accept_arrival=oracle.can_arrive, rules=rules,
                       budget=budget)
    if cont.reachable:
        return Continuity(True, race, editor, c_race, c_editor, percent, cont.m_star, cont,
                          oracle.states_explored)
    # The exact key keeps every (state, phase), so it reaches the first arrival of the
    # two-lap trajectory aptitude found; only the editor key can come back empty.
    exact = cont if bfs.mode == "exact" else layered_bfs(track, "exact", rules=rules,
                                                         accept_arrival=oracle.can_arrive,
                                                         budget=budget)
    if not exact.reachable:
        raise RuntimeError("circuit with no continuable arrival: aptitude and BFS disagree")
    return Continuity(True, race, editor, c_race, c_editor, percent, None, None,
                      oracle.states_explored, exact.m_star)
