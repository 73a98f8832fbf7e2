"""`racecert generate`: valid tracks by construction (checked by the parser and the oracle),
every feature drawn, byte-identical files for a seed, and the layout's disk invariant
against a brute-force outline."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from racecert.analysis import analyze
from racecert.batch.generate import generate_track, generate_tracks
from racecert.batch.layout import can_join, outline, random_polyomino
from racecert.cli import main
from racecert.model.parse import load_track, parse_track

SIZES = [(6, 6), (7, 11), (12, 9), (20, 20), (40, 40), (61, 23)]


@pytest.mark.parametrize("size", SIZES)
def test_every_generated_track_validates(size: tuple[int, int]) -> None:
    for g in generate_tracks(11, 25, *size):
        assert g.attempts == 1, g.text  # the construction needs no redraw
        track = parse_track(g.text.encode(), g.filename)
        assert (track.width, track.height) == size
        assert track.sha256 == g.track.sha256


def test_features_all_occur() -> None:
    seen: Counter[str] = Counter()
    for g in generate_tracks(3, 80, 24, 18):
        seen[g.kind] += 1
        t = g.track
        grid = "".join(g.text.split('ground = """')[1].split('"""')[0])
        seen["shoulder"] += ":" in grid
        seen["ramp"] += "/" in grid
        seen["elevated"] += t.layers == 2
        seen["opening"] += t.opening is not None
        seen["straight opening"] += t.opening is not None and t.opening.straight
        seen["slots"] += bool(t.car.slots)
    for feature in ("stage", "circuit", "shoulder", "ramp", "elevated", "opening",
                    "straight opening", "slots"):
        assert seen[feature] >= 3, (feature, seen)


def test_generated_tracks_are_drivable_and_of_their_kind() -> None:
    """The oracle finds every small generated track reachable, of the kind it was drawn as."""
    for g in generate_tracks(5, 16, 14, 11):
        a = analyze(g.track)
        assert a.bfs.reachable, g.text
        assert a.kind == g.kind, g.text


def test_same_seed_same_bytes_other_seed_other_tracks() -> None:
    first = [g.text for g in generate_tracks(42, 6, 30, 20)]
    assert first == [g.text for g in generate_tracks(42, 6, 30, 20)]
    assert first[:3] == [g.text for g in generate_tracks(42, 3, 30, 20)]  # a prefix
    other = [g.text for g in generate_tracks(43, 6, 30, 20)]
    assert len(set(first) & set(other)) == 0


def test_size_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        generate_track(0, 0, 5, 40)


def _outline_brute_force(faces: set[tuple[int, int]]) -> set[frozenset[tuple[int, int]]]:
    """Boundary unit edges: sides of a face whose neighbour across is not in the set."""
    edges = set()
    for i, j in faces:
        sides = {(0, -1): ((i, j), (i + 1, j)), (0, 1): ((i, j + 1), (i + 1, j + 1)),
                 (-1, 0): ((i, j), (i, j + 1)), (1, 0): ((i + 1, j), (i + 1, j + 1))}
        for (di, dj), side in sides.items():
            if (i + di, j + dj) not in faces:
                edges.add(frozenset(side))
    return edges


def test_polyomino_outline_is_one_simple_loop() -> None:
    rng = random.Random(1)
    for _ in range(200):
        a, b = rng.randint(1, 9), rng.randint(1, 9)
        faces = random_polyomino(rng, a, b, rng.randint(1, a * b))
        assert all(0 <= i < a and 0 <= j < b for i, j in faces)
        loop = outline(faces)
        assert len(set(loop)) == len(loop)  # simple: no lattice point twice (no pinch)
        steps = {frozenset((loop[k], loop[(k + 1) % len(loop)])) for k in range(len(loop))}
        assert all(abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1 for p, q in map(tuple, steps))
        assert steps == _outline_brute_force(faces)  # one loop holds every boundary edge


def test_can_join_keeps_a_disk_without_pinches() -> None:
    assert can_join({(0, 1)}, (1, 1))  # one shared side
    assert can_join({(0, 1), (1, 0), (0, 0)}, (1, 1))  # two adjacent sides, fills a corner
    assert can_join({(0, 1), (1, 0), (2, 1), (0, 0), (2, 0)}, (1, 1))  # three sides
    assert not can_join({(0, 0)}, (1, 1))  # no shared side
    assert not can_join({(0, 1), (2, 1)}, (1, 1))  # two opposite sides
    u_shape = {(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)}
    assert not can_join(u_shape, (1, 2))  # would close a ring round (1, 1)
    # (1, 1) shares a side with (0, 1) and only a corner with (2, 2): a pinch
    assert not can_join({(0, 1), (2, 2)}, (1, 1))


def test_cli_generate_writes_valid_files(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gen"
    assert main(["generate", "--count", "5", "--size", "16x12", "--seed", "7", "-o",
                 str(out)]) == 0
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"gen-7-{i:04d}.toml" for i in range(5)]
    for f in files:
        load_track(f)
    before = [f.read_bytes() for f in files]
    assert main(["generate", "--count", "5", "--size", "16x12", "--seed", "7", "-o",
                 str(out)]) == 0
    assert [f.read_bytes() for f in files] == before
    assert "5 track(s) 16x12" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--count", "0", "--size", "10x10"], "--count: 0 is out of range"),
    (["--count", "2", "--size", "5x10"], "--size: 5x10 is out of range: W from 6 to 500"),
    (["--count", "2", "--size", "ten"], "is not WxH"),
    (["--count", "2", "--size", "9x9", "--seed", "-1"], "--seed: -1 is out of range"),
])
def test_cli_generate_bad_arguments(argv: list[str], message: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generate", *argv, "-o", str(tmp_path / "g")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "g").exists()


def test_cli_generate_missing_parent_folder(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--count", "1", "--size", "9x9", "-o",
                 str(tmp_path / "no" / "such")]) == 2
    assert "does not exist" in capsys.readouterr().err
