"""Continuity as SAT models (`racecert.independent.sat_continuation`): per-state answers
against brute force and the fastgeom decider, checked proofs, replayed models, budgets,
and corruptions (a flipped clause, a dropped move) that must not pass unnoticed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent import sat_continuation
from racecert.independent.drup import check_drup
from racecert.independent.laps import Continuations
from racecert.independent.sat import run_with_proof
from racecert.independent.sat_continuation import (
    ContinuationBudget,
    ContinuationGraph,
    build_continuation_cnf,
    decide_continuations,
    geometry_successors,
)
from racecert.independent.search import explore
from racecert.model.parse import load_track
from racecert.model.track import Track
from tests.oracle.test_continuity import brute_continues
from tests.strategies import small_circuits

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def arrived_sources(track: Track) -> tuple[list[tuple[int, ...]], int]:
    """Every optimal arrived state (both variants) of the independent search, and its phase."""
    d = explore(track).dag
    assert d is not None
    k = track.opening.moves if track.opening else 0
    race = {(int(d.arrive_x[i]), int(d.arrive_y[i]), int(d.arrive_vx[i]), int(d.arrive_vy[i]),
             int(d.arrive_layer[i]), int(d.arrive_progress[i])) for i in range(len(d.arrive_x))}
    return sorted(race | {(*s[:5], 0) for s in race}), min(d.m_star, k)


def test_race_vs_editor_by_hand() -> None:
    """docs/continuity.md example 2: with progress 1 every arrival continues (race rule);
    with progress 0 only the two at (13, 5), between F and S, do."""
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    sources, phase = arrived_sources(track)
    verdicts, work = decide_continuations(track, sources, phase)
    assert all(not v.problem for v in verdicts)
    yes = {v.source for v in verdicts if v.continuable}
    assert {s for s in sources if s[5] == 1} <= yes
    assert {(s[0], s[1]) for s in sources if s[5] == 0 and s in yes} == {(13, 5)}
    for v in verdicts:
        if v.continuable:
            assert v.moves == v.reach.first and "replayed by the verify geometry: ok" in v.evidence
        else:
            assert v.horizon == v.reach.eccentricity + 1 and "verified" not in v.problem
            assert "checker:" in v.evidence
    assert work.proofs_checked == sum(not v.continuable for v in verdicts) == 4
    assert work.solves == len(sources)


def test_no_optimal_arrival_continues_on_the_nocont_ring() -> None:
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    sources, phase = arrived_sources(track)
    verdicts, work = decide_continuations(track, sources, phase)
    assert [v.continuable for v in verdicts] == [False] * len(sources)
    assert work.proofs_checked == len(sources)


@pytest.mark.parametrize("name", ["tiny_circuit_race_vs_editor.toml", "tiny_circuit_nocont.toml",
                                  "limits/opening_outlasts_lap.toml",
                                  "limits/opening_ring_nocont.toml", "tiny_opening_shadow.toml"])
def test_two_independent_deciders_and_brute_force_agree(name: str) -> None:
    """The SAT answers equal the fastgeom decider's (racecert.independent.laps) and, on the
    smaller tracks, a brute-force closure's."""
    track = load_track(TRACKS / name)
    sources, phase = arrived_sources(track)
    verdicts, _ = decide_continuations(track, sources, phase)
    cols = [np.array(c, dtype=np.int64) for c in zip(*sources, strict=True)]
    fast = Continuations(track)(*cols, np.full(len(sources), phase, dtype=np.int64))
    assert [v.continuable for v in verdicts] == fast.tolist()
    if track.width * track.height <= 100:
        assert [v.continuable for v in verdicts] == [brute_continues(track, s, phase)
                                                    for s in sources]


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_circuits())
def test_random_circuits_match_brute_force(gen) -> None:
    track = gen.track
    if explore(track).dag is None:
        return
    sources, phase = arrived_sources(track)
    verdicts, _ = decide_continuations(track, sources, phase)
    assert all(not v.problem for v in verdicts)
    assert [v.continuable for v in verdicts] == [brute_continues(track, s, phase)
                                                for s in sources]


def test_refutations_are_real_formulas_with_checked_proofs(tmp_path: Path) -> None:
    """An editor-variant state of example 2 that cannot continue: its CNF at H = E + 1 has a
    non-empty goal (other sources' continuations fit), is UNSAT, its proof is checked, and
    with a proof folder the formula is written in DIMACS beside the proof."""
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    sources, phase = arrived_sources(track)
    graph = ContinuationGraph(geometry_successors(track), sources, phase, 0)
    stuck = next(s for s in graph.sources if graph.reach(s)[0].first is None)
    reach = graph.reach(stuck)[0]
    cnf = build_continuation_cnf(graph, reach.eccentricity + 1, stuck, graph.distance,
                                 layer0=graph.sources)
    assert cnf.goal  # not vacuous
    run = run_with_proof(cnf.clauses, "glucose4", tmp_path / "p.drup")
    assert not run.sat and check_drup(cnf.clauses, list(run.proof)).verified
    assert (tmp_path / "p.cnf").read_text().startswith(f"p cnf {cnf.nvars} ")
    verdicts, _ = decide_continuations(track, sources, phase, proof_dir=tmp_path,
                                       proof_stem="x")
    written = sorted(p.name for p in tmp_path.glob("x-*"))
    assert len(written) == 2 * sum(v.continuable is False for v in verdicts)
    assert all(v.proof_path for v in verdicts if v.continuable is False)


def test_a_flipped_clause_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flip the support clause of an arriving state (-r -> r): a non-continuable state's CNF
    becomes satisfiable, and its model is no continuation (it does not decode or replay)."""
    real = sat_continuation.build_continuation_cnf

    def flipped(*args, **kwargs):  # type: ignore[no-untyped-def]
        cnf = real(*args, **kwargs)
        goal = next(v for v in cnf.goal if [-v, *cnf.preds[v]] in cnf.clauses)
        i = cnf.clauses.index([-goal, *cnf.preds[goal]])
        cnf.clauses[i] = [goal, *cnf.preds[goal]]
        return cnf

    monkeypatch.setattr(sat_continuation, "build_continuation_cnf", flipped)
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    sources, phase = arrived_sources(track)
    verdicts, _ = decide_continuations(track, sources, phase)
    bad = [v for v in verdicts if v.problem]
    assert bad and all(v.continuable is None for v in bad)
    assert any("does not decode" in v.problem or "does not replay" in v.problem for v in bad)


def test_a_dropped_move_changes_the_answers() -> None:
    """Without the moves into (30, 6), the way down to the lower loop, nothing continues:
    the SAT answers follow the successor function they are given (the certify check then
    disagrees with the oracle)."""
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    real = geometry_successors(track)

    def dropped(s, phase):  # type: ignore[no-untyped-def]
        return [(n, a) for n, a in real(s, phase) if (n[0], n[1]) != (30, 6)]

    sources, phase = arrived_sources(track)
    verdicts, _ = decide_continuations(track, sources, phase, successors=dropped)
    assert not any(v.continuable for v in verdicts)


def test_budgets_stop_with_a_message() -> None:
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    sources, phase = arrived_sources(track)
    with pytest.raises(ContinuationBudget,
                       match="closure holds at least .* size budget of 10 states"):
        decide_continuations(track, sources, phase, max_nodes=10)
    with pytest.raises(ContinuationBudget, match="size budget of 5 variables"):
        decide_continuations(track, sources, phase, max_vars=5)
