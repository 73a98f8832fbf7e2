"""Races in the studio (only where the race package is installed): built-in drivers by
name, the replay's timeline, and refusals of anything else."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from racecert.model.parse import load_track
from racecert.studio.document import track_to_json
from tests.studio.conftest import TRACKS
from tests.studio.test_api import events_of

race = pytest.importorskip("racecert.race")


def test_session_offers_the_builtin_drivers(client: TestClient) -> None:
    info = client.get("/api/session").json()["race"]
    assert {"alonso", "amateur"} <= set(info["drivers"])


def test_the_cars_colours_are_the_replays_and_none_is_the_analysiss(client: TestClient) -> None:
    from racecert.analysis.svg import COLORS
    from racecert.race.replay import CAR_COLORS
    from tests.race.test_replay_page import _delta_e

    colors = client.get("/api/session").json()["race"]["colors"]
    assert colors == list(CAR_COLORS)  # one palette, served from its one home
    for color in colors:  # the studio draws a race over yellow, green, blue and red coverage
        for name in ("yellow", "green", "blue", "red"):
            assert _delta_e(color, COLORS[name]) > 30, (color, name)


def test_a_race_replays_every_car_turn(client: TestClient) -> None:
    d = track_to_json(load_track(TRACKS / "4_esquinas.toml"))
    r = client.post("/api/jobs", json={"kind": "race", "document": d,
                                       "drivers": ["alonso", "amateur"], "laps": 1, "seed": 3})
    assert r.status_code == 202, r.text
    data = events_of(client, r.json()["id"])[-1]["data"]
    direct = race.run_race(load_track(TRACKS / "4_esquinas.toml"),
                           [race.Alonso(), race.Amateur()], laps=1, seed=3)
    assert data["race"]["cars"] == [c.to_json() for c in direct.cars]  # seeded: reproducible
    assert len(data["steps"]) == sum(len(c.trajectory) - 1 for c in direct.cars)
    pos = [c["trajectory"][0] for c in data["race"]["cars"]]
    for s in data["steps"]:  # the timeline walks each car along its own trajectory
        assert pos[s["car"]] == s["before"]
        pos[s["car"]] = s["after"]
    assert pos == [c["trajectory"][-1] for c in data["race"]["cars"]]
    assert len(data["colors"]) == 2 and len(data["standings"]["rows"]) == 2
    from racecert.race.replay import finish_steps
    from racecert.race.standings import standings_rows

    assert data["standings"]["rows"] == [list(r) for r in standings_rows(direct)]
    finish = finish_steps(direct)  # who finished on which step: the standings' reveal
    assert data["finishers"] == [{"car": c, "step": finish[c], "moves": direct.cars[c].moves}
                                 for c in sorted(finish, key=finish.__getitem__)]


@pytest.mark.parametrize(("extra", "words"), [
    ({"drivers": ["tracks/evil.py:Drive"]}, "drivers: a list"),
    ({"drivers": []}, "drivers: a list"),
    ({"drivers": ["alonso"], "laps": 0}, "laps"),
    ({"drivers": ["alonso"], "seed": -1}, "seed"),
])
def test_race_options_are_checked(client: TestClient, extra: dict, words: str) -> None:
    d = track_to_json(load_track(TRACKS / "4_esquinas.toml"))
    r = client.post("/api/jobs", json={"kind": "race", "document": d, **extra})
    assert r.status_code == 400 and words in r.json()["error"]


def test_a_race_that_cannot_start_is_one_line(client: TestClient) -> None:
    d = track_to_json(load_track(TRACKS / "tiny_straight.toml"))
    r = client.post("/api/jobs", json={"kind": "race", "document": d, "drivers": ["alonso"],
                                       "laps": 2})
    last = events_of(client, r.json()["id"])[-1]
    assert last["type"] == "error" and "stage" in last["message"] and "\n" not in last["message"]
