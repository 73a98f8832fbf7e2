"""The page's document, the TOML writer and the lenient loader: exact round trips.

Independent truth: the project's own parser. Every bundled track written by
`track_to_toml` parses back to the same `Track` (every field but the file's
SHA-256 and path), the text is a fixpoint, and strings with any character survive
TOML's escapes (checked with tomllib, not with our writer).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.studio.document import (
    DocumentError,
    draft_from_json,
    draft_from_toml,
    track_to_json,
)
from racecert.studio.toml_text import TomlWriteError, toml_string, track_to_toml
from tests.studio.conftest import TRACKS

ALL_TRACKS = sorted(TRACKS.glob("*.toml")) + sorted(TRACKS.glob("limits/*.toml"))


def same(a: Track, b: Track) -> bool:
    """Equal in every field but the file's hash and path."""
    return dataclasses.replace(a, sha256="", path="") == dataclasses.replace(b, sha256="", path="")


@pytest.mark.parametrize("path", ALL_TRACKS, ids=lambda p: p.name)
def test_every_bundled_track_round_trips_through_the_parser(path: Path) -> None:
    track = load_track(path)
    text = track_to_toml(track)
    again = parse_track(text.encode("utf-8"))
    assert same(again, track)
    assert track_to_toml(again) == text  # a fixpoint: saving twice changes nothing


@pytest.mark.parametrize("path", ALL_TRACKS, ids=lambda p: p.name)
def test_page_document_round_trips(path: Path) -> None:
    track = load_track(path)
    doc = track_to_json(track)
    assert same(draft_from_json(doc), track)
    assert track_to_json(draft_from_json(doc)) == doc


def test_defaults_are_left_out_and_restored() -> None:
    text = track_to_toml(load_track(TRACKS / "tiny_straight.toml"))
    assert "layer" not in text and "slots" not in text and "[opening]" not in text
    assert 'ground = """\n##########\n#........#\n##########\n"""' in text


def test_opening_elevated_and_slots_are_written() -> None:
    text = track_to_toml(load_track(TRACKS / "apertura.toml"))
    assert "[opening]" in text and "moves = " in text
    text = track_to_toml(load_track(TRACKS / "ocho.toml"))
    assert 'elevated = """\n' in text
    text = track_to_toml(load_track(TRACKS / "4_esquinas.toml"))
    assert "slots = [[14, 3], [13, 2], [13, 3]]" in text


@given(st.text(max_size=40))
def test_any_string_survives_toml_escapes(text: str) -> None:
    assert tomllib.loads(f"v = {toml_string(text)}")["v"] == text


def test_name_and_description_with_quotes_and_newlines_round_trip() -> None:
    track = dataclasses.replace(load_track(TRACKS / "tiny_straight.toml"),
                                name='The "big" one \\ ok', description='line 1\nline "2"\t\x01')
    again = parse_track(track_to_toml(track).encode("utf-8"))
    assert (again.name, again.description) == (track.name, track.description)


def test_a_grid_character_outside_the_format_is_refused_by_the_writer() -> None:
    track = dataclasses.replace(load_track(TRACKS / "tiny_straight.toml"),
                                ground=('####', '#"""', '####'))
    with pytest.raises(TomlWriteError, match=r"\[map\].ground row 1 column 1"):
        track_to_toml(track)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.pop("ground"), "ground: must be a list"),
    (lambda d: d.update(ground=["##", "#x"]), "ground row 1 column 1: bad character 'x'"),
    (lambda d: d.update(ground=["#" * 401]), "at most 400 cells"),
    (lambda d: d["car"].update(position=[1]), "car.position: must be a pair"),
    (lambda d: d["car"].update(direction="up"), "car.direction: must be one of"),
    (lambda d: d["start"].update(axis="z"), "start.axis: must be one of x, y"),
    (lambda d: d["finish"].update(k=True), "finish.k: must be an integer"),
    (lambda d: d.update(opening={"moves": 0}), "opening.moves: must be an integer from 1"),
    (lambda d: d.update(name=5), "name: must be a string"),
    (lambda d: d.update(kind="rally"), "kind: must be one of stage, circuit"),
])
def test_document_shape_errors_name_the_field(mutate, message: str) -> None:
    doc = track_to_json(load_track(TRACKS / "tiny_straight.toml"))
    mutate(doc)
    with pytest.raises(DocumentError, match=message.replace("(", r"\(").replace("[", r"\[")):
        draft_from_json(doc)


def test_a_file_the_validator_rejects_still_opens_as_a_draft() -> None:
    text = (TRACKS / "tiny_straight.toml").read_text().replace("position = [1, 1]",
                                                               "position = [0, 0]")
    with pytest.raises(TrackError):
        parse_track(text.encode())
    draft = draft_from_toml(text.encode(), "x.toml")
    assert draft.car.position == (0, 0) and draft.width == 10


def test_a_file_that_is_not_a_track_table_raises_the_parsers_error() -> None:
    with pytest.raises(TrackError, match="TOML syntax error"):
        draft_from_toml(b"name = [", "x.toml")
    with pytest.raises(TrackError, match="missing required table"):
        draft_from_toml(b'name = "x"\n', "x.toml")
