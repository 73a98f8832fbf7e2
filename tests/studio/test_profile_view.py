"""Lattice and cell-path tracks in the studio: opened as a read-only view (a note, the
track's picture, its facts and file text), analysed and certified in a job's process
through the profile registries, with the figures and verdicts `racecert.api` gives.

The expected figures are the API's own (`racecert.api.analyze` / `certify` on the same
file), never copied numbers; the pictures are compared by structure (their elements),
never pixels.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from racecert import api
from racecert.studio.document import draft_from_toml, is_grid
from racecert.studio.track_view import track_picture
from tests.certification.test_lattice_certificate import SMALL_VN
from tests.studio.conftest import TRACKS, make_app, studio_client
from tests.studio.test_api import events_of

ROOT = TRACKS.parent
SVG = "{http://www.w3.org/2000/svg}"
VIEWED = [("lattice/riddler.toml", "lattice", "Riddler racetrack"),
          ("lattice/riddler_von_neumann.toml", "lattice", "Riddler racetrack, von Neumann moves"),
          ("cellpath/hairpin.toml", "cell-path", "hairpin")]


def group(svg: str, gid: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    found = [g for g in root.iter() if g.get("id") == gid]
    assert len(found) == 1, gid
    return found[0]


@pytest.mark.parametrize(("name", "profile", "title"), VIEWED)
def test_a_track_of_another_profile_opens_as_a_read_only_view(client: TestClient, name: str,
                                                               profile: str, title: str
                                                               ) -> None:
    text = (TRACKS / name).read_text()
    r = client.post("/api/import", json={"name": Path(name).name, "text": text})
    assert r.status_code == 200, r.text
    body = r.json()
    view = body["view"]
    assert body["document"] is None and body["verdict"] is None
    assert view["profile"] == profile and view["name"] == title
    assert view["text"] == text and view["file"] == Path(name).name
    assert "\n" not in view["note"] and "grid tracks" in view["note"] and "as text" in view["note"]
    track = api.load_track(TRACKS / name)
    assert (view["width"], view["height"]) == (track.width, track.height)
    starts = group(view["picture"], "starts")
    assert len(starts) == len(track.starts)


def test_the_lattice_picture_draws_the_walls_finish_and_starts() -> None:
    riddler = api.load_track(TRACKS / "lattice/riddler.toml")
    svg = track_picture(riddler)
    walls = group(svg, "walls")
    assert [e.tag for e in walls] == [f"{SVG}circle"] * len(riddler.circles)  # the infield
    finish = group(svg, "finish")
    assert len(finish) == 2  # the segment and its direction mark (a directed finish)
    assert len(group(svg, "points")) == riddler.width * riddler.height


def test_the_cell_path_picture_draws_one_rectangle_per_run_of_cells(tmp_path: Path) -> None:
    text = "dim: 3 5\nxxxxx\nxs.gx\nxxxxx\n"
    track = draft_from_toml(text.encode(), "row.track")
    assert not is_grid(track)
    svg = track_picture(track)
    assert len(group(svg, "blocked")) == 4  # the top and bottom rows, two single walls
    assert len(group(svg, "goal")) == 1 and len(group(svg, "starts")) == 1


def test_a_cell_path_map_opens_from_a_folder_and_from_the_command_line(tmp_path: Path) -> None:
    pocket = ROOT / "docs/examples/pocket.track"
    (tmp_path / "pocket.track").write_bytes(pocket.read_bytes())
    with studio_client(make_app(tmp_path, initial=pocket)) as c:
        view = c.get("/api/session").json()["initial"]["view"]
        assert view["profile"] == "cell-path" and view["file"] == "pocket.track"
        folders = c.get("/api/files").json()["folders"]
        assert "pocket.track" in folders[1]["files"]
        r = c.post("/api/open", json={"folder": 1, "path": "pocket.track"})
        assert r.status_code == 200 and r.json()["view"]["name"] == "pocket"
        save = c.post("/api/save", json={"document": None, "folder": 1, "path": "x.track"})
        assert save.status_code == 400  # never written: Save is for grid tracks' TOML
        assert not (tmp_path / "x.track").exists()


def test_a_broken_lattice_file_is_one_line(client: TestClient) -> None:
    text = (TRACKS / "lattice/riddler.toml").read_text().replace("radius = 3", "radius = -3")
    r = client.post("/api/import", json={"name": "riddler.toml", "text": text})
    error = r.json()["error"]
    assert r.status_code == 400 and "\n" not in error and "radius" in error, error


def view_job(client: TestClient, kind: str, name: str, **extra) -> dict:
    text = (ROOT / name).read_text()
    body = {"kind": kind, "document": None, "view": {"text": text, "file": Path(name).name},
            **extra}
    r = client.post("/api/jobs", json=body)
    assert r.status_code == 202, r.text
    events = events_of(client, r.json()["id"])
    assert events[-1]["type"] == "result", events[-1]
    return events[-1]["data"]


@pytest.mark.parametrize("name", ["tracks/lattice/riddler.toml", "docs/examples/pocket.track"])
def test_analyse_gives_the_api_figures_and_the_profile_picture(client: TestClient,
                                                              name: str) -> None:
    a = view_job(client, "analyze", name)
    truth = api.analyze(ROOT / name)
    report = truth.to_json()
    assert a["view"] is True and a["report"]["sha256"] == report["sha256"]
    figures = {f["name"]: f for f in a["figures"]}
    assert figures["m_star"]["value"] == truth.bfs.m_star == a["m_star"]
    assert figures["optimal_count"]["display"] == f"{truth.bfs.optimal_count:,}"
    assert figures["final_states"]["value"] == truth.bfs.final_states
    assert figures["green_length"]["value"] == report["green"]["length_exact"]
    assert figures["blue_ties"]["value"] == report["blue"]["ties"]
    assert a["svg"] == truth._repr_svg_()  # the profile's own picture, as analyze -o draws it
    assert a["trajectories"] == [] and a["kind"] is None


# SMALL_VN: a lattice track with the von Neumann set that certifies in a fraction of a
# second (the bundled von Neumann riddler takes seconds, in the job and again for the API;
# its certificate is tested in tests/certification/test_lattice_certificate.py).


def test_certify_gives_the_api_verdicts(client: TestClient, tmp_path: Path) -> None:
    small = tmp_path / "small_vn.toml"
    small.write_text(SMALL_VN)
    c = view_job(client, "certify", str(small))
    truth = api.certify(small, cpsat_budget=20.0)
    assert truth.status == "certified" and truth.track.accelerations == "von-neumann"
    assert c["status"] == truth.status
    assert c["headline"] == truth.headline.removesuffix(": see the table")
    assert {n: f["verdict"] for n, f in c["figures"].items()} == {
        f.name: f.verdict for f in truth.figures}
    rows = {f["name"] for f in c["analysis"]["figures"]}
    assert set(c["figures"]) <= rows  # every verdict has its row in the figures table
    validity = next(f for f in c["analysis"]["figures"] if f["name"] == "move_validity")
    assert "von-neumann" in validity["display"]


def test_view_jobs_refuse_the_race_the_editor_key_and_a_bad_text(client: TestClient) -> None:
    text = (TRACKS / "lattice/riddler.toml").read_text()
    view = {"text": text, "file": "riddler.toml"}
    for body, words in [({"kind": "race", "view": view}, "grid tracks only"),
                        ({"kind": "analyze", "mode": "editor", "view": view}, "exact key"),
                        ({"kind": "analyze", "view": {"text": "rules = 1", "file": "a.toml"}},
                         "a.toml"),
                        ({"kind": "analyze", "view": {"text": 3}}, "as strings"),
                        ({"kind": "analyze", "view": {
                            "text": (TRACKS / "tiny_straight.toml").read_text(),
                            "file": "tiny.toml"}}, "as a document")]:
        r = client.post("/api/jobs", json=body)
        error = r.json()["error"]
        assert r.status_code == 400 and "\n" not in error and words in error, (body, error)


def test_a_lattice_search_over_its_cap_is_a_limit_not_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The lattice pipeline's own state cap (`LatticeLimitError`) ends a job as a resource
    limit, like the studio's --max-states, never as "internal error"."""
    import io
    import json

    from racecert.analysis.lattice import pipeline
    from racecert.studio import worker

    monkeypatch.setattr(pipeline, "MAX_STATES", 5)
    out = io.StringIO()
    toml = (TRACKS / "lattice" / "riddler.toml").read_text()
    worker.run_job({"kind": "analyze", "toml": toml, "options": {"file": "riddler.toml"}},
                   out)
    last = json.loads(out.getvalue().splitlines()[-1])
    assert last["type"] == "error" and last["limit"] is True
    assert last["message"].startswith("the search holds ")
