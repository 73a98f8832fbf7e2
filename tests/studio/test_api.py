"""The studio's JSON API through Starlette's test client: every refusal is a 4xx with a
one-line message (never a 500), files stay inside the folders given, saves round-trip
through the parser, and jobs stream their progress, finish, and can be cancelled."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from racecert.certification.certificate import certify
from racecert.model.parse import load_track, parse_track
from racecert.studio.document import draft_from_json, track_to_json
from tests.studio.conftest import TRACKS, make_app, open_field, studio_client
from tests.studio.test_document import same


def tiny() -> dict:
    return track_to_json(load_track(TRACKS / "tiny_straight.toml"))


def events_of(client: TestClient, job_id: str) -> list[dict]:
    """The job's server-sent events (the stream ends with the terminal event)."""
    with client.stream("GET", f"/api/jobs/{job_id}/events") as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        text = "".join(r.iter_text())
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_the_page_and_its_assets_come_from_the_package(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "racecert studio" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    for asset in ("/static/studio.css", "/static/js/main.js", "/static/js/view.js"):
        assert client.get(asset).status_code == 200
    assert "http" not in r.text.replace("http-equiv", "")  # no CDN, no remote asset


def test_session_lists_the_bundled_tracks_read_only(client: TestClient, tmp_path: Path) -> None:
    s = client.get("/api/session").json()
    bundled, mine = s["folders"]
    assert bundled["label"] == "bundled tracks" and not bundled["writable"]
    assert "ocho.toml" in bundled["files"] and mine["writable"]
    assert s["initial"] is None and s["limits"]["max_states"] > 0


def test_open_a_bundled_track(client: TestClient) -> None:
    r = client.post("/api/open", json={"folder": 0, "path": "ocho.toml"})
    assert r.status_code == 200
    body = r.json()
    assert same(draft_from_json(body["document"]), load_track(TRACKS / "ocho.toml"))
    assert body["verdict"]["valid"] and body["verdict"]["messages"] == []


@pytest.mark.parametrize(("path", "status", "words"), [
    ("../pyproject.toml", 400, "inside"),
    ("/etc/passwd.toml", 400, "inside"),
    ("README.md", 400, "ends in .toml"),
    ("nope.toml", 400, "no such file"),
])
def test_paths_outside_the_folders_are_refused(client: TestClient, path: str, status: int,
                                                 words: str) -> None:
    r = client.post("/api/open", json={"folder": 0, "path": path})
    assert r.status_code == status and words in r.json()["error"]


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out.toml").symlink_to(TRACKS / "ocho.toml")
    with studio_client(make_app(tmp_path)) as c:
        r = c.post("/api/open", json={"folder": 1, "path": "out.toml"})
    assert r.status_code == 403 and "outside" in r.json()["error"]


def test_validate_places_the_message(client: TestClient) -> None:
    d = tiny()
    d["car"]["position"] = [0, 1]
    v = client.post("/api/validate", json={"document": d}).json()
    assert not v["valid"]
    (m,) = v["messages"]
    assert m["where"] == "[car].position" and m["target"]["cells"] == [[0, 1, 0]]


def test_save_round_trips_and_refuses_read_only_and_overwrite(client: TestClient,
                                                              tmp_path: Path) -> None:
    d = track_to_json(load_track(TRACKS / "ocho.toml"))
    d["name"] = 'Ocho "copy"'
    r = client.post("/api/save", json={"document": d, "folder": 1, "path": "copy.toml"})
    assert r.status_code == 200, r.text
    saved = parse_track((tmp_path / "copy.toml").read_bytes())
    assert same(saved, draft_from_json(d))
    assert [p.name for p in tmp_path.iterdir()] == ["copy.toml"]  # no temp file left
    again = client.post("/api/save", json={"document": d, "folder": 1, "path": "copy.toml"})
    assert again.status_code == 409 and again.json()["exists"]
    ok = client.post("/api/save", json={"document": d, "folder": 1, "path": "copy.toml",
                                        "overwrite": True})
    assert ok.status_code == 200
    ro = client.post("/api/save", json={"document": d, "folder": 0, "path": "x.toml"})
    assert ro.status_code == 403 and "read only" in ro.json()["error"]
    up = client.post("/api/save", json={"document": d, "folder": 1, "path": "../x.toml"})
    assert up.status_code == 400 and not (tmp_path.parent / "x.toml").exists()


def test_import_text_of_a_file(client: TestClient) -> None:
    text = (TRACKS / "apertura.toml").read_text()
    r = client.post("/api/import", json={"name": "apertura.toml", "text": text})
    assert r.status_code == 200
    assert same(draft_from_json(r.json()["document"]), load_track(TRACKS / "apertura.toml"))
    bad = client.post("/api/import", json={"name": "x.toml", "text": "name = ["})
    assert bad.status_code == 400 and "TOML syntax error" in bad.json()["error"]


def test_requests_the_server_refuses(client: TestClient) -> None:
    assert client.post("/api/validate", content=b"{", headers={
        "content-type": "application/json"}).status_code == 400
    assert client.post("/api/validate", content=b"document=1", headers={
        "content-type": "application/x-www-form-urlencoded"}).status_code == 415
    big = client.post("/api/validate", json={"document": tiny(), "pad": "x" * (5 * 2**20)})
    assert big.status_code == 413
    other = client.post("/api/validate", json={"document": tiny()},
                        headers={"origin": "http://evil.example"})
    assert other.status_code == 403
    assert client.get("/api/session", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/api/jobs/nope").status_code == 404
    assert client.post("/api/jobs", json={"kind": "rm -rf", "document": tiny()}).status_code == 400
    invalid = tiny()
    invalid["car"]["position"] = [0, 0]
    r = client.post("/api/jobs", json={"kind": "analyze", "document": invalid})
    assert r.status_code == 400 and "does not validate" in r.json()["error"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                        max_size=4),
                    max_leaves=12))
def test_any_document_is_answered_without_a_500(client: TestClient, value) -> None:
    for url in ("/api/validate", "/api/save", "/api/jobs"):
        r = client.post(url, json={"document": value, "folder": 1, "path": "f.toml",
                                   "kind": "analyze"})
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            assert "\n" not in r.json()["error"]


def test_analyse_streams_steps_then_the_result(client: TestClient) -> None:
    r = client.post("/api/jobs", json={"kind": "analyze", "document": tiny()})
    assert r.status_code == 202
    events = events_of(client, r.json()["id"])
    steps = [e["name"] for e in events if e["type"] == "step"]
    assert steps == ["yellow", "bfs", "laps", "continuity", "representatives", "coverage",
                     "score"]
    result = events[-1]
    assert result["type"] == "result"
    a = result["data"]
    figures = {f["name"]: f for f in a["figures"]}
    assert a["m_star"] == 3 and figures["m_star"]["display"] == "3"  # docs/rules.md, by hand
    assert figures["yellow_length"]["value"] == "6"
    assert [t["name"] for t in a["trajectories"]] == ["yellow", "green", "blue"]
    yellow = a["trajectories"][0]
    assert yellow["positions"] == [[1, 1], [2, 1], [4, 1], [7, 1]]
    assert yellow["layers"] == [0, 0, 0, 0]
    assert [s["speed"] for s in yellow["steps"]] == ["1", "2", "3"]
    assert a["coverage"]["red"] == "7/8" and len(a["coverage"]["cells"]) == 7
    state = client.get(f"/api/jobs/{r.json()['id']}").json()
    assert state["state"] == "done"


def test_analyse_of_a_bridge_tells_ground_from_elevated(client: TestClient) -> None:
    d = track_to_json(load_track(TRACKS / "ocho.toml"))
    job = client.post("/api/jobs", json={"kind": "analyze", "document": d}).json()["id"]
    a = events_of(client, job)[-1]["data"]
    for t in a["trajectories"]:
        assert {0, 1} <= set(t["layers"])  # every lap drives on the bridge and under it
        assert len(t["layers"]) == len(t["positions"]) == t["moves"] + 1


def test_certify_gives_each_figure_its_verdict_and_methods(client: TestClient) -> None:
    r = client.post("/api/jobs", json={"kind": "certify", "document": tiny()})
    events = events_of(client, r.json()["id"])
    c = events[-1]["data"]
    direct = certify(load_track(TRACKS / "tiny_straight.toml"), cpsat_budget=20.0)
    assert c["status"] == direct.status
    assert {n: f["verdict"] for n, f in c["figures"].items()} == {
        f.name: f.verdict for f in direct.figures}
    assert c["figures"]["m_star"]["verdict"] == "agree"
    assert any("CP-SAT" in k["method"] for k in c["figures"]["m_star"]["checks"])
    assert c["analysis"]["m_star"] == 3


def test_a_running_job_can_be_cancelled_and_its_process_ends(tmp_path: Path,
                                                              job_processes: None) -> None:
    track = tmp_path / "big.toml"
    track.write_text(open_field(120, 120))
    with studio_client(make_app(tmp_path, max_running=1)) as c:
        d = track_to_json(load_track(track))
        job_id = c.post("/api/jobs", json={"kind": "certify", "document": d}).json()["id"]
        busy = c.post("/api/jobs", json={"kind": "analyze", "document": tiny()})
        assert busy.status_code == 429 and "cancel" in busy.json()["error"]
        for _ in range(600):  # bounded wait for the first step (not a timing assertion)
            if c.get(f"/api/jobs/{job_id}").json()["events"]:
                break
            time.sleep(0.05)
        r = c.delete(f"/api/jobs/{job_id}")
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        job = c.app.state.jobs.get(job_id)
        assert job.process.poll() is not None  # the child has ended
        events = events_of(c, job_id)
        assert events[-1]["type"] == "cancelled"
        assert all(e["type"] != "result" for e in events)
        again = c.post("/api/jobs", json={"kind": "analyze", "document": tiny()})
        assert again.status_code == 202  # the slot is free again
        # ended here, not run to its end: a second worker process importing the analysis
        # (about half a CPU second) is not what this test is about
        assert c.delete(f"/api/jobs/{again.json()['id']}").status_code == 200
        assert c.app.state.jobs.get(again.json()["id"]).process.poll() is not None


def test_the_work_limit_ends_a_job_with_one_line(tmp_path: Path) -> None:
    from racecert.studio.worker import JobLimits

    with studio_client(make_app(tmp_path, limits=JobLimits(max_states=1_000))) as c:
        d = track_to_json(load_track(TRACKS / "4_esquinas.toml"))
        job_id = c.post("/api/jobs", json={"kind": "analyze", "document": d}).json()["id"]
        last = events_of(c, job_id)[-1]
    assert last["type"] == "error" and last["limit"]
    assert last["message"].startswith("resource limit reached: the BFS explored")


# -- the session token, malformed paths and bodies -----------------------------------------


def test_every_api_request_needs_the_token(tmp_path: Path) -> None:
    """Without the token, or with a wrong one, every API route is 403 with one line (a
    local process cannot save over a track); with it in the header, the query or the
    cookie set by the page load that carried it, the request goes through."""
    app = make_app(tmp_path)
    token = app.state.token
    assert len(token) >= 40  # secrets.token_urlsafe(32)
    save = {"document": tiny(), "folder": 1, "path": "x.toml"}
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for headers in ({}, {"X-Racecert-Token": "wrong"}, {"X-Racecert-Token": token[:-1]},
                        {"X-Racecert-Token": token + "x"},
                        {"X-Racecert-Token": "\u00e9".encode("latin-1")}):
            for method, url, body in (("GET", "/api/session", None),
                                      ("GET", "/api/files", None),
                                      ("POST", "/api/save", save),
                                      ("POST", "/api/jobs", {"kind": "analyze"}),
                                      ("GET", "/api/jobs/x/events", None),
                                      ("GET", "/api/session?token=wrong", None)):
                r = c.request(method, url, json=body, headers=headers)
                assert r.status_code == 403, (method, url, headers)
                assert "token is missing or wrong" in r.json()["error"]
        assert not (tmp_path / "x.toml").exists()
        assert c.get("/").status_code == 200  # the page itself holds nothing
        assert c.get("/api/session", headers={"X-Racecert-Token": token}).status_code == 200
        assert c.get(f"/api/session?token={token}").status_code == 200
        r = c.post("/api/save", json=save, headers={"X-Racecert-Token": token})
        assert r.status_code == 200 and (tmp_path / "x.toml").is_file()
        assert c.get("/api/files").status_code == 403
        page = c.get(f"/?token={token}")  # the printed URL: sets the cookie
        assert page.status_code == 200 and "httponly" in page.headers["set-cookie"].lower()
        assert c.get("/api/files").status_code == 200  # the cookie, on a reload


def test_the_token_is_compared_in_constant_time(tmp_path: Path, monkeypatch) -> None:
    import hmac

    from racecert.studio import app as app_module

    calls = []
    real = hmac.compare_digest
    monkeypatch.setattr(app_module.hmac, "compare_digest",
                        lambda a, b: calls.append((a, b)) or real(a, b))
    app = make_app(tmp_path)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/api/files", headers={"X-Racecert-Token": "guess"}).status_code == 403
    assert (b"guess", app.state.token.encode()) in calls


@pytest.mark.parametrize("path", ["a\x00b.toml", "\x00", "x\n.toml", "a" * 5000 + ".toml",
                                  "\ud800.toml"])
def test_a_malformed_path_is_400_not_500(client: TestClient, path: str) -> None:
    for url, body in (("/api/open", {"folder": 1, "path": path}),
                      ("/api/save", {"document": tiny(), "folder": 1, "path": path})):
        r = client.post(url, content=json.dumps(body), headers={"Content-Type":
                                                                "application/json"})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert "\n" not in error and "not a file name" in error


@pytest.mark.parametrize("body", ["[" * 50_000 + "]" * 50_000,
                                  '{"document": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
                                  '{"document": ' + "[" * 65 + "]" * 65 + "}"])
def test_over_deep_json_is_400_not_500(client: TestClient, body: str) -> None:
    r = client.post("/api/validate", content=body,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "nested deeper than 64" in r.json()["error"]


def test_brackets_inside_strings_do_not_count(client: TestClient) -> None:
    d = tiny()
    d["description"] = "[" * 10_000
    r = client.post("/api/validate", json={"document": d})
    assert r.status_code == 200
