"""The state budget in every search of the oracle: it stops each search exactly past its
limit, names the search and where, and changes no figure below it."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.generate import corridor
from racecert.analysis import analyze
from racecert.model import budget as budget_module
from racecert.model.budget import LimitReached, StateBudget, StateLimitReached
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.oracle import envelopes
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.continuity import continuity
from racecert.oracle.dijkstra import shortest_trajectory
from racecert.oracle.envelopes import bounded_bfs, table_states
from racecert.oracle.laps import lap_aptitude, two_laps_possible

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def test_doctests() -> None:
    assert doctest.testmod(budget_module).failed == 0


def test_a_budget_allows_its_limit_and_no_more() -> None:
    b = StateBudget(10, "--max-states")
    b.check(10, "BFS")
    with pytest.raises(StateLimitReached) as info:
        b.check(11, "BFS", "at depth 3")
    assert str(info.value) == ("state limit reached: the BFS stored 11 states at depth 3 "
                               "(--max-states 10)")
    assert isinstance(info.value, LimitReached)
    with pytest.raises(ValueError):
        StateBudget(0)


@pytest.mark.parametrize("mode", ["exact", "editor"])
def test_the_bfs_stops_exactly_past_the_limit(mode: str) -> None:
    t = load_track(TRACKS / "espiral.toml")
    free = layered_bfs(t, mode)
    n = free.states_explored
    at_limit = layered_bfs(t, mode, budget=StateBudget(n))
    assert (at_limit.m_star, at_limit.optimal_count, at_limit.final_counts) == (
        free.m_star, free.optimal_count, free.final_counts)
    with pytest.raises(StateLimitReached) as info:
        layered_bfs(t, mode, budget=StateBudget(n - 1))
    assert (info.value.search, info.value.where, info.value.stored) == (
        "BFS", f"at depth {free.m_star - 1}", n)


def test_bounded_bfs_passes_the_budget_on() -> None:
    t = load_track(TRACKS / "ocho.toml")
    run = bounded_bfs(t, "exact", 40)
    with pytest.raises(StateLimitReached, match="the BFS stored"):
        bounded_bfs(t, "exact", 40, budget=StateBudget(run.result.states_explored // 2))


def test_the_envelope_tables_count_against_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long thin corridor holds a few states per layer, but the pruner's tables hold one
    entry per speed and position along it (100000 x 3: 89 million, 3.6 GB, a minute
    before the first layer): the budget stops the run before they are built."""
    t = parse_track(corridor(3000, 3))
    assert table_states(t) == (2 * 76 + 1) * 3000 + 3 * 3

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tables were built past the budget")

    monkeypatch.setattr(envelopes, "axis_mask", never)
    with pytest.raises(StateLimitReached) as info:
        bounded_bfs(t, "exact", 100, budget=StateBudget(100_000))
    assert str(info.value) == (
        "state limit reached: the envelope tables stored 459,009 states of one axis (a speed "
        "and a position each) before the bounded BFS (max_states 100000)")


def test_yellow_stops_in_either_search() -> None:
    t = load_track(TRACKS / "espiral.toml")

    def y(limit: int | None) -> Any:
        return shortest_trajectory(t, length_of=RadicalSum.of_vector, zero=RadicalSum.zero(),
                                   budget=None if limit is None else StateBudget(limit))

    free = y(None)
    assert y(10**7).accelerations == free.accelerations
    with pytest.raises(StateLimitReached, match="yellow bounding search"):
        y(50)
    with pytest.raises(StateLimitReached, match="yellow search"):
        shortest_trajectory(t, length_of=RadicalSum.of_vector, zero=RadicalSum.zero(),
                            prune=False, budget=StateBudget(50))


def test_the_lap_search_stops() -> None:
    t = load_track(TRACKS / "4_esquinas.toml")
    ok, explored = two_laps_possible(t)
    assert ok
    assert lap_aptitude(t, budget=StateBudget(explored)).kind == "circuit"
    with pytest.raises(StateLimitReached, match="the lap search stored"):
        lap_aptitude(t, budget=StateBudget(explored // 2))


def test_the_continuity_exploration_stops() -> None:
    t = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    bfs = layered_bfs(t)
    free = continuity(t, bfs)
    assert free.states_explored > 10
    assert continuity(t, bfs, budget=StateBudget(10**6)).race.tolist() == free.race.tolist()
    with pytest.raises(StateLimitReached, match="the continuity exploration stored"):
        continuity(t, bfs, budget=StateBudget(10))


@pytest.mark.parametrize("name", ["4_esquinas", "ocho", "espiral", "apertura",
                                  "tiny_circuit_nocont"])
def test_no_figure_changes_below_the_limit(name: str) -> None:
    t = load_track(TRACKS / f"{name}.toml")
    for mode in ("exact", "editor"):
        free = analyze(t, mode).to_json()
        bounded = analyze(t, mode, budget=StateBudget(10**7)).to_json()
        for data in (free, bounded):
            data.pop("seconds")
            data.pop("timings")
        assert bounded == free


@pytest.mark.parametrize("name", ["tiny_straight", "tiny_spiral_stage", "espiral",
                                  "caleidoscopio", "candelabro", "arcenes", "apertura"])
def test_continuity_on_a_stage_needs_no_exploration(name: str) -> None:
    """Given a computed stage, continuity explores nothing and says what the exploring
    version says (no arrival continues in either variant)."""
    t = load_track(TRACKS / f"{name}.toml")
    bfs = layered_bfs(t)
    aptitude = lap_aptitude(t)
    assert aptitude.kind == "stage"
    explored = continuity(t, bfs)
    skipped = continuity(t, bfs, aptitude, budget=StateBudget(1))  # would stop any search
    assert skipped.states_explored == 0
    for field in ("applicable", "race", "editor", "continuable_count",
                  "continuable_count_editor", "percent", "m_cont", "m_cont_exact"):
        a, b = getattr(skipped, field), getattr(explored, field)
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, field
