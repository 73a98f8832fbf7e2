"""An opening rule that outlasts the first lap (issue #14; docs/continuity.md).

The continuation keeps the opening rule (moves m*+1..K still obey it). Checked here:
the three tracks of the issue and their shrunken forms (tracks/limits/opening_*.toml),
by hand-derived numbers and against independent searches written with
`tests/bruteforce.py`'s moves; `analyze` never raising in either mode on random small
circuits with opening rules (Hypothesis, and a seeded slice of the sweep of
`benchmarks/sweep_opening_laps.py`); and corruption tests for the sweep's checks.
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks import sweep_opening_laps as sweep_mod
from benchmarks.opening_properties import PROPERTIES
from racecert.analysis import analyze
from racecert.analysis.library import build_library
from racecert.analysis.representatives import RepresentativeDP
from racecert.cli import main
from racecert.cli.analyze import human_report
from racecert.model.parse import load_track
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.continuity import continuity
from racecert.oracle.laps import LapAptitude, lap_aptitude
from tests import bruteforce
from tests.oracle.test_continuity import brute_continues
from tests.oracle.test_laps import brute_two_laps, next_lap_progress
from tests.strategies import small_circuits

LIMITS = Path(__file__).resolve().parents[2] / "tracks" / "limits"
OUTLASTS = ("opening_outlasts_lap.toml", "opening_outlasts_lap_min.toml")
NOCONT = ("opening_ring_nocont.toml", "opening_ring_nocont_min.toml")
STAGE = ("opening_ring_stage.toml", "opening_ring_stage_min.toml")


def limit(name: str) -> Track:
    return load_track(LIMITS / name)


def brute_first_continuable(track: Track, editor: bool, horizon: int = 40) -> int | None:
    """The first depth with an arrival from which another lap can be made (None: none).

    A layered search with the brute force's moves. Exact: keyed by (state, phase);
    editor: by the state alone, the opening applied by depth, as the editor does.
    Arrivals that cannot continue end their trajectory, as in the m_cont search.
    """
    k = track.opening.moves if track.opening else 0
    s0 = bruteforce.initial_state(track)
    seen = {s0 if editor else (s0, 0)}
    frontier = [s0]
    for t in range(horizon):
        succ = []
        found = False
        for s in frontier:
            for a in bruteforce.ACCELS:
                o = bruteforce.move(track, s, a, t < k)
                if o is None:
                    continue
                if o.arrives:
                    arrived = o.state[:5] + (next_lap_progress(track, s, a),)
                    found = found or brute_continues(track, arrived, min(t + 1, k))
                    continue
                key = o.state if editor else (o.state, min(t + 1, k))
                if key not in seen:
                    seen.add(key)
                    succ.append(o.state)
        if found:
            return t + 1
        if not succ:
            return None
        frontier = succ
    raise AssertionError(f"no answer within {horizon} moves")


def final_states(track: Track, mode: str = "exact") -> dict[tuple[int, ...], int]:
    return dict(layered_bfs(track, mode).final_state_list())  # type: ignore[arg-type]


# -- 1. the 7x4 circuit of the issue: the editor key finds no continuable arrival -------------


@pytest.mark.parametrize("name", OUTLASTS)
def test_outlasts_exact_key_by_hand(name: str) -> None:
    """m* = 3 at speed 1 along the start row; moves 4 and 5 still limited to speed 1 lead
    only onto the shoulder (4, y), into walls or off the grid: no optimal arrival continues.
    The only 5-move lap detours through the row above and arrives with move 6 free."""
    t = limit(name)
    y = t.car.position[1]
    bfs = layered_bfs(t)
    assert (bfs.m_star, bfs.optimal_count) == (3, 1)
    assert final_states(t) == {(3, y, 1, 0, 0): 1}
    brute = bruteforce.enumerate_optimal(t)
    assert (brute.m_star, brute.total) == (3, 1)
    c = continuity(t, bfs)
    assert c.applicable and not any(c.race) and not any(c.editor)
    assert c.m_cont == 5 and c.m_cont_exact is None and c.m_cont_null_reason is None
    assert c.cont_bfs is not None and c.cont_bfs.optimal_count == 1
    detour = RepresentativeDP(c.cont_bfs.dag, t.car.position).select().green.trajectory
    assert detour.positions == ((0, y), (0, y - 1), (1, y - 1), (1, y), (2, y), (3, y))
    assert brute_first_continuable(t, editor=False) == 5
    state = bfs.dag.arrive_state.state(0)
    assert state.phase == 3 and not brute_continues(t, (3, y, 1, 0, 0, 0), 3)
    assert brute_continues(t, (3, y, 1, 0, 0, 0), 5)  # the same arrival with the rule over


@pytest.mark.parametrize("name", OUTLASTS)
def test_outlasts_editor_key_finds_none_and_says_so(name: str) -> None:
    t = limit(name)
    assert brute_first_continuable(t, editor=True) is None  # independent editor-key search
    a = analyze(t, "editor")
    j = a.to_json()
    assert (j["m_star"], j["kind"], j["continuity_applicable"]) == (3, "circuit", True)
    assert j["m_cont"] is None and j["m_cont_null_reason"] == "editor-key-finds-none"
    assert j["m_cont_exact"] == 5 == analyze(t, "exact").to_json()["m_cont"]
    assert j["opening_active_at_arrival"] is True and j["opening_moves_after_arrival"] == 2
    table = human_report(a)
    assert "none found by the editor key (exact key: 5)" in table
    assert "still active (K = 5 > m* = 3): moves 4..5" in table
    lib = build_library([a])["tracks"][0]  # the library has no continuable lap to offer
    assert lib["m_cont"] is None and lib["trai"] is None and lib["troi"] is None


def test_outlasts_shadow_by_hand() -> None:
    """The detour's state after 4 moves, (2, 3) at v = (1, 0) past S, is the direct lap's
    state after 2 moves: the phase-less key has seen it, at phase 2 < K."""
    t = limit(OUTLASTS[0])
    direct = bruteforce.initial_state(t)
    for a in ((1, 0), (0, 0)):
        direct = bruteforce.move(t, direct, a, True).state
    detour = bruteforce.initial_state(t)
    for a in ((0, -1), (1, 1), (-1, 1), (1, -1)):
        detour = bruteforce.move(t, detour, a, True).state
    assert direct == detour == (2, 3, 1, 0, 0, 1)


@pytest.mark.parametrize("mode", ["exact", "editor"])
def test_outlasts_cli_does_not_crash(mode: str, capsys) -> None:
    path = str(LIMITS / OUTLASTS[0])
    assert main(["analyze", path, "--mode", mode, "--all-slots"]) == 0
    assert main(["analyze", path, "--mode", mode, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{"):])
    assert data["m_cont"] == (5 if mode == "exact" else None)


# -- 2. the 4x7 ring: no optimal arrival continues ----------------------------------------------


@pytest.mark.parametrize("name", NOCONT)
def test_ring_nocont_by_hand(name: str) -> None:
    """Straight, speed <= 2, K = 5, S at y = 7/2 and F at y = 9/2 in column 0 from (0, 1):
    speeds 1,1,2 / 1,2,1 / 1,2,2 cross F on move 3 (two moves reach y = 4 at most). Moves 4
    and 5 are still straight and at least 1 down: from y = 5 or 6 they leave the grid. The
    lap 1,1,1,1 arrives at (0, 5) on move 4; move 5 goes to (0, 6) and move 6 may turn."""
    t = limit(name)
    for mode in ("exact", "editor"):
        bfs = layered_bfs(t, mode)  # type: ignore[arg-type]
        assert (bfs.m_star, bfs.optimal_count) == (3, 3)
        assert final_states(t, mode) == {(0, 5, 0, 2, 0): 1, (0, 5, 0, 1, 0): 1,
                                         (0, 6, 0, 2, 0): 1}
        c = continuity(t, bfs)
        assert c.applicable and not any(c.race) and not any(c.editor)
        assert (c.continuable_count, c.percent) == (0, Fraction(0))
        assert c.m_cont == 4 and c.cont_bfs.optimal_count == 1
        assert c.cont_bfs.final_state_list() == [((0, 5, 0, 1, 0), 1)]
    brute = bruteforce.enumerate_optimal(t)
    assert (brute.m_star, brute.total) == (3, 3)
    for final in brute.per_final:
        assert not brute_continues(t, (*final, 0), 3)  # moves 4, 5 still straight
        # with the rule over, the two at y = 5 would turn; (0, 6) at speed 2 cannot
        assert brute_continues(t, (*final, 0), 5) == (final[1] == 5)
    assert brute_first_continuable(t, editor=False) == 4
    assert brute_first_continuable(t, editor=True) == 4
    assert lap_aptitude(t).kind == "circuit" and brute_two_laps(t)
    j = analyze(t).to_json()
    assert j["opening_active_at_arrival"] and j["opening_moves_after_arrival"] == 2


# -- 3. the 10x8 ring: the opening rule makes it a stage ---------------------------------------


@pytest.mark.parametrize(("name", "m_star", "finals"), [
    (STAGE[0], 3, {(8, 1, 2, 0, 0): 1, (8, 1, 1, 0, 0): 1}),
    (STAGE[1], 2, {(4, 0, 2, 0, 0): 1}),
])
def test_ring_stage_by_hand(name: str, m_star: int, finals: dict) -> None:
    """Straight for 5 moves: vx keeps its sign (it cannot pass 0) and |vx| >= 1. Backwards
    the car hits the wall before any line; forwards it crosses F by move 4 (3 in the small
    one) and then still has a straight move, into the wall or off the grid. So no
    trajectory makes a second lap: a stage. Without the rule the ring is a circuit."""
    t = limit(name)
    bfs = layered_bfs(t)
    assert bfs.m_star == m_star and final_states(t) == finals
    brute = bruteforce.enumerate_optimal(t)
    assert (brute.m_star, brute.total) == (m_star, len(finals))
    apt = lap_aptitude(t)
    assert (apt.kind, apt.topological, apt.kinematic) == ("stage", True, False)
    assert not brute_two_laps(t)
    free = replace(t, opening=None)
    assert lap_aptitude(free).kind == "circuit" and brute_two_laps(free)
    for mode in ("exact", "editor"):
        a = analyze(t, mode)  # type: ignore[arg-type]
        j = a.to_json()
        assert j["kind"] == "stage" and j["continuity_applicable"] is False
        assert j["m_cont"] is None and j["m_cont_null_reason"] == "stage"
        assert j["opening_active_at_arrival"] is True
        assert j["opening_moves_after_arrival"] == 5 - m_star
        assert "still active" in human_report(a)


@pytest.mark.parametrize(("prop", "names"), [
    ("editor-finds-none", OUTLASTS), ("no-optimal-continuation", NOCONT),
    ("stage-by-opening", STAGE)])
def test_tracks_have_their_property(prop: str, names: tuple[str, ...]) -> None:
    """Each track and its shrunken form show the behaviour it was shrunk for; the
    declared kind is the computed one."""
    for name in names:
        t = limit(name)
        assert PROPERTIES[prop](t), name
        assert lap_aptitude(t).kind == t.kind


# -- the opening at arrival, the exact-key invariant -----------------------------------------------


def test_opening_moves_after_arrival_edges() -> None:
    root = LIMITS.parent
    no_rule = analyze(load_track(root / "tiny_straight.toml")).to_json()
    assert no_rule["opening_active_at_arrival"] is False
    assert no_rule["opening_moves_after_arrival"] == 0
    unreachable = analyze(load_track(root / "mini_apertura.toml"), "editor").to_json()
    assert not unreachable["reachable"]
    assert unreachable["opening_active_at_arrival"] is None
    assert unreachable["m_cont_null_reason"] is None  # no continuity at all
    over = analyze(load_track(root / "apertura.toml")).to_json()  # K = 4 < m* = 7
    assert over["opening_active_at_arrival"] is False
    assert "opening at arrival" not in human_report(analyze(load_track(root / "apertura.toml")))


@pytest.mark.parametrize("mode", ["exact", "editor"])
def test_a_circuit_with_no_continuable_arrival_is_an_error(mode: str) -> None:
    """Corruption: told that a stage is a circuit, neither key finds a continuable
    arrival, and the exact-key invariant raises instead of reporting a null."""
    t = load_track(LIMITS.parent / "tiny_straight.toml")
    lie = LapAptitude("circuit", True, True, 0)
    with pytest.raises(RuntimeError, match="aptitude and BFS disagree"):
        continuity(t, layered_bfs(t, mode), lie)  # type: ignore[arg-type]


# -- analyze never raises on small circuits with opening rules ---------------------------------


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_circuits())
def test_analyze_never_raises_on_random_circuits(gen) -> None:
    results, bad = sweep_mod.run_case(gen.track)
    assert bad == []
    for j in results.values():
        if j["reachable"]:
            k = gen.track.opening.moves
            assert j["opening_moves_after_arrival"] == max(0, k - j["m_star"])


def test_seeded_sweep_slice() -> None:
    """The first 40 cases of `python -m benchmarks.sweep_opening_laps --seed 0`."""
    report = sweep_mod.sweep(40, seed=0)
    assert report.failures == [], sweep_mod.markdown(report)
    assert report.valid == 40
    labels = " ".join(report.outcomes)
    assert "exact: circuit, opening active at arrival" in labels  # the slice reaches the case


def test_sweep_records_an_exception(monkeypatch) -> None:
    """Corruption: an analysis that raises is a failure of the case, not a crash."""
    def boom(track, mode="exact"):
        raise RuntimeError("boom")

    monkeypatch.setattr(sweep_mod, "analyze", boom)
    results, bad = sweep_mod.run_case(limit(NOCONT[1]))
    assert results == {} and bad == ["exact mode raised RuntimeError: boom",
                                     "editor mode raised RuntimeError: boom"]


def test_key_rules_catch_broken_reports() -> None:
    """Corruption: each rule between the two keys' reports fails on a report breaking it."""
    t = limit(OUTLASTS[0])
    exact, editor = analyze(t, "exact").to_json(), analyze(t, "editor").to_json()
    assert sweep_mod.key_rules(exact, editor) == []
    assert sweep_mod.key_rules({**exact, "m_cont": None,
                                "m_cont_null_reason": "editor-key-finds-none"}, editor)
    assert sweep_mod.key_rules(exact, {**editor, "m_cont_exact": 6})
    assert sweep_mod.key_rules(exact, {**editor, "m_cont": 4, "m_cont_null_reason": None})
