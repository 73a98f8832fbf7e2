"""Pipeline, coverage and library on bundled tracks, checked against hand-worked facts."""

from __future__ import annotations

from fractions import Fraction

from racecert.analysis import analyze
from racecert.analysis.coverage import drivable_cells, jaccard_distance, red_coverage
from racecert.analysis.library import build_library
from racecert.analysis.trajectory import Trajectory
from racecert.model.parse import load_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import CarState, apply_move
from racecert.oracle.bfs import layered_bfs


def test_tiny_straight_coverage_by_hand() -> None:
    """One optimal trajectory 1 -> 2 -> 4 -> 7 on row 1: cells x = 1..7 of the 8 drivable."""
    t = load_track("tracks/tiny_straight.toml")
    cov = red_coverage(t, layered_bfs(t).dag)
    assert drivable_cells(t) == 8
    assert cov.cells == frozenset((x, 1) for x in range(1, 8))
    assert cov.fraction == Fraction(7, 8)


def test_trajectory_cells_and_jaccard() -> None:
    a = Trajectory.replay((1, 1), ((1, 0), (1, 0)))  # 1 -> 2 -> 4
    b = Trajectory.replay((1, 1), ((1, 1),))  # corner move to (2, 2): touches (1,1), (2,2)
    assert a.cells == {(1, 1), (2, 1), (3, 1), (4, 1)}
    assert b.cells == {(1, 1), (2, 2)}
    assert jaccard_distance(a.cells, b.cells) == Fraction(4, 5)
    assert b.length == RadicalSum.sqrt_of(2)


def replays(track, traj: Trajectory) -> bool:
    """Whether `traj` is valid move by move and arrives exactly at its last move."""
    x, y = track.car.position
    s = CarState(x, y, 0, 0, track.car.layer, 0, 0)
    k = track.opening.moves if track.opening else 0
    for i, acc in enumerate(traj.accelerations):
        r = apply_move(track, s, acc)
        if not r.valid or r.arrives != (i == traj.moves - 1):
            return False
        s = CarState(*r.state.kinematic, r.state.progress, min(i + 1, k))
    return (s.x, s.y) == traj.positions[-1]


def test_4_esquinas_report() -> None:
    t = load_track("tracks/4_esquinas.toml")
    a = analyze(t)
    j = a.to_json()
    assert j["kind"] == "circuit" and j["m_star"] == 20 and j["optimal_count"] == "3460"
    assert j["bound"]["yellow_moves"] == a.yellow.moves >= a.bfs.m_star
    assert not j["bound"]["protection_rerun"]
    for name in ("yellow", "green", "blue"):
        traj = Trajectory(tuple(map(tuple, j[name]["positions"])),
                          tuple(map(tuple, j[name]["accelerations"])))
        assert replays(t, traj), name
        assert RadicalSum.parse(j[name]["length_exact"]) == traj.length
    assert j["green"]["moves"] == j["blue"]["moves"] == 20
    assert RadicalSum.parse(j["yellow"]["length_exact"]) <= RadicalSum.parse(
        j["green"]["length_exact"]) <= RadicalSum.parse(j["blue"]["length_exact"])
    assert 1 <= int(j["green"]["ties"]) <= 3460
    p, q = map(int, j["coverage"]["red"].split("/"))
    assert Fraction(p, q) == Fraction(j["coverage"]["touched_cells"],
                                      j["coverage"]["drivable_cells"])
    s = j["score"]
    assert set(s["components"]) == {"coverage", "expert_advantage", "diversity", "continuity"}
    assert 0 <= s["total"] <= 100 and s["band"] in ("good", "excellent")
    assert s["components"]["continuity"]["exact"] == j["continuable_fraction_exact"]


def test_stage_drops_continuity_and_library_uses_all_arrivals() -> None:
    a = analyze(load_track("tracks/candelabro.toml"))
    assert a.kind == "stage"
    assert a.to_json()["score"]["components"]["continuity"] is None
    lib = build_library([a])
    e = lib["tracks"][0]
    assert e["troi"]["length_exact"] == str(a.representatives.green.length)
    assert e["trai"]["length_exact"] == str(a.representatives.blue.length)
    assert e["tray"]["moves"] == a.yellow.moves
    assert e["sha256"] == a.track.sha256 and e["m_star"] == a.bfs.m_star


def test_library_on_circuit_takes_continuable_arrivals() -> None:
    t = load_track("tracks/4_esquinas.toml")
    a = analyze(t)
    e = build_library([a])["tracks"][0]
    assert e["representatives_moves"] == a.bfs.m_star and e["m_cont"] is None
    green = RadicalSum.parse(a.to_json()["green"]["length_exact"])
    blue = RadicalSum.parse(a.to_json()["blue"]["length_exact"])
    troi = RadicalSum.parse(e["troi"]["length_exact"])
    trai = RadicalSum.parse(e["trai"]["length_exact"])
    assert green <= troi <= trai <= blue
    # the troi final state is one of the race-continuable arrivals
    dag = a.bfs.dag
    finals = {dag.arrive_state.state(i).kinematic[:2]
              for i, ok in enumerate(a.continuity.race) if ok}
    assert tuple(e["troi"]["positions"][-1]) in finals


def test_editor_mode_runs_with_editor_selection() -> None:
    a = analyze(load_track("tracks/apertura.toml"), "editor")
    j = a.to_json()
    assert j["mode"] == "editor" and j["yellow"]["selection"] == "editor"
    assert j["yellow"]["certified_minimum"] is False


def test_library_falls_back_to_m_cont() -> None:
    """No optimal arrival of this circuit continues: trai/troi come from depth m_cont."""
    a = analyze(load_track("tracks/tiny_circuit_nocont.toml"))
    assert a.kind == "circuit" and not any(a.continuity.race)
    e = build_library([a])["tracks"][0]
    assert e["m_cont"] == a.continuity.m_cont > a.bfs.m_star
    assert e["trai"]["moves"] == e["troi"]["moves"] == e["representatives_moves"] == e["m_cont"]
    assert a.score.capped and a.score.total == 19


def _red_by_hand(dag) -> set[tuple[int, int]]:
    """Red cells move by move, with the verify layer's separate touched-cell geometry."""
    from racecert.independent.geometry import touched_cells

    cells = {(int(dag.layers[0].x[0]), int(dag.layers[0].y[0]))}
    moves = set()
    for t, (src, dst) in enumerate(dag.edges):
        a, b = dag.layers[t], dag.layers[t + 1]
        moves |= {(int(a.x[s]), int(a.y[s]), int(b.vx[d]), int(b.vy[d]))
                  for s, d in zip(src.tolist(), dst.tolist(), strict=True)}
    last = dag.layers[-1]
    avx, avy = dag.arrive_state.velocities(slice(None))
    moves |= {(int(last.x[s]), int(last.y[s]), int(avx[i]), int(avy[i]))
              for i, s in enumerate(dag.arrive_src.tolist())}
    for x, y, vx, vy in moves:
        cells |= {(x + dx, y + dy) for dx, dy, _ in touched_cells(vx, vy)}
    return cells


def test_red_coverage_matches_a_move_by_move_count() -> None:
    from benchmarks.generate import open_area
    from racecert.model.parse import parse_track

    tracks = [load_track(f"tracks/{n}.toml") for n in ("ocho", "espiral", "4_esquinas")]
    tracks.append(parse_track(open_area(30, 15, 24).encode(), "open30.toml"))
    for t in tracks:
        dag = layered_bfs(t).dag
        cov = red_coverage(t, dag)
        assert cov.cells == frozenset(_red_by_hand(dag)), t.name


def test_red_coverage_in_small_chunks_is_the_same(monkeypatch) -> None:
    """`red_coverage` reads the arriving moves `CHUNK` at a time: with chunks of five
    moves (dozens of chunks), the same cells as in one chunk and as the move-by-move
    count."""
    from racecert.analysis import coverage

    t = load_track("tracks/ocho.toml")
    dag = layered_bfs(t).dag
    whole = red_coverage(t, dag)
    monkeypatch.setattr(coverage, "CHUNK", 5)
    small = red_coverage(t, dag)
    assert small == whole and small.cells == frozenset(_red_by_hand(dag))
