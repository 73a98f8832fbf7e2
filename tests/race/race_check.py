"""Independent check of a race's JSON: every turn replayed with the brute-force rules.

Shares no code with the race engine or the model's rules: moves are judged by
`tests/bruteforce.py` (its own geometry), the race is reconstructed from the JSON's
trajectories alone (a repeated point is a wait: a move with v' = (0, 0) is never
valid), and the race rules of docs/races.md are re-applied: cars in turn order, a
move may not end on a cell another car still racing occupies, laps counted by
arrivals, a finished car leaves the track.
"""

from __future__ import annotations

from typing import Any

from racecert.model.track import Track
from tests import bruteforce as bf


def _next_lap_progress(track: Track, x: int, y: int, vx: int, vy: int) -> int:
    """The arrived state's progress: 1 when the arriving move crossed S after F.

    (Lines on layer 0 without a bridge over them, as on every track this is used on.)
    """
    ts, tf = bf.crossing(track.start, x, y, vx, vy), bf.crossing(track.finish, x, y, vx, vy)
    return int(ts is not None and tf is not None and ts > tf)


def check_race(track: Track, race: dict[str, Any]) -> None:
    """Assert that `race` (the JSON of `racecert race`) obeys the race rules."""
    cars = race["cars"]
    k = track.opening.moves if track.opening else 0
    states = []
    for c in cars:
        x, y = c["trajectory"][0]
        states.append((x, y, 0, 0, track.car.layer, 0))
    moves_made = [0] * len(cars)
    laps = [0] * len(cars)
    lap_start = [0] * len(cars)
    per_lap: list[list[int]] = [[] for _ in cars]
    finish_turn: list[int | None] = [None] * len(cars)
    order = []
    for turn in range(1, race["turns"] + 1):
        for i, c in enumerate(cars):
            if finish_turn[i] is not None:
                assert len(c["trajectory"]) == finish_turn[i] + 1, f"car {i} moved after finishing"
                continue
            assert turn < len(c["trajectory"]), f"car {i} has no point for turn {turn}"
            x, y, vx, vy, layer, progress = states[i]
            qx, qy = c["trajectory"][turn]
            waits = [e for e in c["events"] if e["turn"] == turn and e["kind"] == "wait"]
            if (qx, qy) == (x, y):
                assert len(waits) == 1, f"car {i} turn {turn}: stands still without a wait"
                continue
            assert not waits, f"car {i} turn {turn}: a wait event but the car moved"
            occupied = {(states[j][0], states[j][1]) for j in range(len(cars))
                        if j != i and finish_turn[j] is None}
            assert (qx, qy) not in occupied, f"car {i} turn {turn} ends on an occupied cell"
            accel = (qx - x - vx, qy - y - vy)
            assert accel in bf.ACCELS, f"car {i} turn {turn}: acceleration {accel}"
            out = bf.move(track, states[i], accel, moves_made[i] < k)
            assert out is not None, f"car {i} turn {turn}: invalid move {states[i]} {accel}"
            moves_made[i] += 1
            nx, ny, nvx, nvy, nlayer, nprogress = out.state
            if out.arrives:
                nprogress = _next_lap_progress(track, x, y, nvx, nvy)
                laps[i] += 1
                per_lap[i].append(turn - lap_start[i])
                lap_start[i] = turn
                if laps[i] == race["laps"]:
                    finish_turn[i] = turn
                    order.append(i)
            states[i] = (nx, ny, nvx, nvy, nlayer, nprogress)
    for i, c in enumerate(cars):
        assert c["finished"] == (finish_turn[i] is not None)
        assert c["finish_turn"] == finish_turn[i]
        assert c["moves_per_lap"] == per_lap[i]
        assert c["laps_completed"] == laps[i]
        assert c["moves"] == len(c["trajectory"]) - 1
        assert c["waits"] == sum(1 for e in c["events"] if e["kind"] == "wait")
    assert race["order"] == order
    assert race["status"] == ("finished" if len(order) == len(cars) else "move_limit")
    if race["status"] == "move_limit":
        assert race["turns"] == race["move_limit"]
