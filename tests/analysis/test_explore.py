"""explore: editor-vs-exact disagreements are found, shrunk and written as valid tracks."""

from __future__ import annotations

from pathlib import Path

from racecert.analysis.explore import (
    Discrepancy,
    LineSpec,
    OpeningFamily,
    check,
    explore,
    opening_families,
    random_rooms,
    room,
    shrink,
)
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

LIMITS = Path(__file__).resolve().parents[2] / "tracks" / "limits"


def test_committed_limits_disagree_as_documented() -> None:
    expected = {"opening_speed1.toml": (1, 2), "opening_speed2.toml": (3, 4)}
    for name, (editor, exact) in expected.items():
        t = load_track(LIMITS / name)
        ed, ex = layered_bfs(t, "editor"), layered_bfs(t, "exact")
        assert ed.m_star == ex.m_star == 4
        assert (ed.optimal_count, ex.optimal_count) == (editor, exact)


def test_k1_never_disagrees_on_small_rooms() -> None:
    fams = tuple(f for f in opening_families() if f.moves == 1)
    rep = explore([("random", random_rooms(150, 3, ((6, 4), (7, 5)), fams))])
    assert sum(n for k, n in rep.searched.items() if "invalid" not in k) > 50
    assert rep.found == ()


def test_shrink_keeps_the_disagreement_and_gets_smaller() -> None:
    fam = OpeningFamily("max_speed", 3, 1, False)
    walls = {(3, 1), (4, 1), (5, 1)}  # open lower lane, blocked upper lane (as opening_speed1)
    c = room(8, 4, walls, 1, LineSpec("x", 4, 1, 2, "+x"), fam)
    d = check(c)
    assert isinstance(d, Discrepancy) and d.kind == "count"
    small = shrink(d)
    assert small.kind == "count"
    assert small.candidate.cells <= c.cells
    assert check(small.candidate) is not None
    assert small.candidate.track() is not None


def test_no_opening_rule_means_no_disagreement() -> None:
    # the same room without a binding rule: max speed 9 never binds on an 8-wide room
    fam = OpeningFamily("max_speed", 3, 9, False)
    c = room(8, 4, {(3, 1), (4, 1), (5, 1)}, 1, LineSpec("x", 4, 1, 2, "+x"), fam)
    assert c.track() is not None and check(c) is None
