"""The cell-path profile's model: the vectorised `expand` against the scalar reference
`cellpath_move` on random maps, the zero-velocity move, the modules' doctests, and the
map reader's one-line errors on malformed maps."""

from __future__ import annotations

import doctest
import importlib
import random

import pytest

from racecert.model.cellpath.parse import parse_map_text
from racecert.model.cellpath.rules import CellPathRules, cellpath_move
from racecert.model.cellpath.track import CellPathTrack, start_cells
from racecert.model.errors import TrackError
from racecert.model.rules import CarState, StateArrays

MODULES = ["racecert.model.cellpath.parse", "racecert.model.cellpath.rules",
           "racecert.model.cellpath.track", "racecert.independent.cellpath.walk",
           "racecert.independent.cellpath.search"]


def _random_track(rng: random.Random) -> CellPathTrack:
    w, h = rng.randint(2, 6), rng.randint(1, 5)
    g = [[rng.choice("x...g") for _ in range(w)] for _ in range(h)]
    g[rng.randrange(h)][rng.randrange(w)] = "s"
    free = [(x, y) for y in range(h) for x in range(w) if g[y][x] != "s"]
    if not any("g" in r for r in g):
        x, y = rng.choice(free)
        g[y][x] = "g"
    rows = tuple("".join(r) for r in g)
    return CellPathTrack("random", w, h, rows, start_cells(rows), rng.choice([1, 1, 2]),
                         rng.choice([None, 1, 3]))


def test_expand_is_the_scalar_move_on_random_maps() -> None:
    """Every state of every drivable cell and velocity, every acceleration: the same
    successors and arrivals from the vectorised `expand` and from `cellpath_move`."""
    rng = random.Random(7)
    for _ in range(40):
        t = _random_track(rng)
        rules = CellPathRules(t)
        states = [CarState(x, y, vx, vy) for y in range(t.height) for x in range(t.width)
                  if t.rows[y][x] not in "xg" for vx in range(-t.width + 1, t.width)
                  for vy in range(-t.height + 1, t.height)]
        e = rules.expand(StateArrays.of(states))
        ours = {(int(i), e.succ.state(j).kinematic[:4], False) for j, i in enumerate(e.src)}
        ours |= {(int(i), e.arrive_state.state(j).kinematic[:4], True)
                 for j, i in enumerate(e.arrive_src)}
        scalar = set()
        for i, s in enumerate(states):
            for a in rules.accelerations:
                m = cellpath_move(t, s, a)
                if m.valid:
                    scalar.add((i, m.state.kinematic[:4], m.arrives))
        assert ours == scalar, t.rows


def test_a_zero_velocity_move_stays_and_is_a_move() -> None:
    t = parse_map_text("dim: 1 4\ns..g\n", "z.track")
    rules = CellPathRules(t)
    m = cellpath_move(t, CarState(1, 0, 1, 0), (-1, 0))  # brake to a standstill
    assert m.valid and not m.arrives and m.state.kinematic[:4] == (1, 0, 0, 0)
    e = rules.expand(StateArrays.of([CarState(1, 0, 1, 0)]))
    assert (1, 0, 0, 0) in {e.succ.state(j).kinematic[:4] for j in range(len(e.src))}


@pytest.mark.parametrize("name", MODULES)
def test_the_module_examples_run(name: str) -> None:
    failed, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0


@pytest.mark.parametrize(("text", "message"), [
    ("\u00b2\n1\nsg\n", "line 1 must be 'dim: H W'"),  # a superscript two: no ASCII digit
    ("dim: \u0661 3\ns.g\n", "line 1 must be 'dim: H W'"),  # an Arabic-Indic one
    ("dim: " + "9" * 5000 + " 3\ns.g\n", "line 1 must be 'dim: H W'"),
    ("3\n\u00b2\ns.g\n", "line 2 must be the height"),
    ("dim: 1 3\n..g\n", "start"),
    ("dim: 1 3\ns..\n", "goal"),
    ("dim: 2 3\ns.g\n", "expected 2"),
    ("dim: 1 3\ns?g\n", "?"),
])
def test_a_malformed_map_is_one_line(text: str, message: str) -> None:
    with pytest.raises(TrackError) as err:
        parse_map_text(text, "bad.track")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_worked_example_of_the_rules() -> None:
    """docs/rules.md section 10: the one-row map `s.g`, move by move, and its figures."""
    from racecert.analysis.lattice.pipeline import analyze_lattice

    t = parse_map_text("dim: 1 3\ns.g\n", "s.g.track")
    first = cellpath_move(t, CarState(0, 0, 0, 0), (1, 0))
    assert first.valid and not first.arrives and first.state.kinematic[:4] == (1, 0, 1, 0)
    here = CarState(1, 0, 1, 0)
    outcomes = {a: cellpath_move(t, here, a) for a in ((0, 0), (1, 0), (1, -1), (1, 1))}
    assert all(outcomes[a].arrives for a in ((0, 0), (1, 0), (1, -1)))
    assert outcomes[(1, -1)].state.kinematic[:4] == (2, 0, 2, -1)  # on the goal, v' kept
    assert not outcomes[(1, 1)].valid
    a = analyze_lattice(t)
    assert (a.bfs.m_star, a.bfs.optimal_count) == (2, 3)
    assert a.blue is not None and a.green is not None
    # every run stands on (0, 0), (1, 0), (2, 0): each is 2 long, the last move ending on
    # the goal cell whatever its v' (docs)
    assert (str(a.green.length), a.green.ties, str(a.blue.length), a.blue.ties) == (
        "2", 3, "2", 3)
    for ext in (a.green, a.blue):
        assert ext.trajectory.positions == ((0, 0), (1, 0), (2, 0))
        assert ext.trajectory.length == ext.length


def test_a_run_ends_on_its_goal_cell() -> None:
    """The last point of every reported trajectory is a goal cell, and its length is the
    path through the cells it stood on, on random maps."""
    from racecert.analysis.lattice.pipeline import analyze_lattice

    rng = random.Random(3)
    for _ in range(30):
        t = _random_track(rng)
        a = analyze_lattice(t, best_start=True)
        for ext in (a.green, a.blue):
            if ext is None:
                continue
            x, y = ext.trajectory.positions[-1]
            assert t.rows[y][x] == "g" and ext.trajectory.length == ext.length
