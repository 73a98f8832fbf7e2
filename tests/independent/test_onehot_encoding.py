"""The one-hot CNF is the same formula as before its builder was split (a regression guard).

`build_onehot_cnf` was one 200-line function with its own variable counter; it is now one
builder method per constraint family over a pysat `IDPool`. The figures below were taken
from the old function on these tracks and horizons, for each domain option: variables,
clauses, literals, and a digest of the clause multiset (each clause's literals sorted, the
clauses sorted). The new builder declares its variables in the old order, so even the
numbering is unchanged and the digests match exactly. Change them only together with a
deliberate change of the encoding.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import pytest

from racecert.independent import onehot
from racecert.independent.movetable import MoveTable, build_move_table
from racecert.independent.onehot import OneHotCnf, build_onehot_cnf
from racecert.independent.race_rules import FINISH
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from tests.certification.test_geometry_crosscheck import RAMP_TRACK

TRACKS = Path(__file__).resolve().parents[2] / "tracks"

BEFORE = [  # (track, T, backward, cells, vars, clauses, literals, clause multiset digest)
    ("ocho", 6, True, True, 371, 540, 1070, "844caa5bb3a2428a"),
    ("ocho", 6, True, False, 968, 5443, 15349, "8253a4d6a861a70d"),
    ("ocho", 6, False, False, 968, 4383, 11109, "914a5ba6ea3d2360"),
    ("tiny_opening_shadow", 3, True, True, 47, 83, 159, "bd5290acc5f07254"),
    ("tiny_opening_shadow", 3, True, False, 76, 236, 577, "fe0c16bae6358879"),
    ("tiny_opening_shadow", 3, False, False, 76, 216, 497, "3adab8e95f799954"),
    ("mini_apertura", 4, True, True, 68, 118, 228, "596673421a1eff23"),
    ("mini_apertura", 4, True, False, 94, 275, 664, "4349b828fc726e76"),
    ("mini_apertura", 4, False, False, 94, 242, 532, "a43109ad938c3367"),
    ("mini_arcen", 3, True, True, 53, 116, 259, "225c486d490dd93c"),
    ("mini_arcen", 3, True, False, 56, 128, 288, "9d603579e9c7ee20"),
    ("mini_arcen", 3, False, False, 56, 119, 252, "34c3148d8ab62ecf"),
    ("apertura", 6, True, True, 355, 1375, 3679, "59bc77dba1c7959a"),
    ("apertura", 6, True, False, 520, 2579, 7133, "59bef87f8a2b183a"),
    ("apertura", 6, False, False, 520, 2012, 4865, "4588c02b0ff0585a"),
    ("arcenes", 8, True, True, 785, 3581, 9849, "6a364d99b8265f4f"),
    ("arcenes", 8, True, False, 1501, 8134, 27329, "7173958c94543a08"),
    ("arcenes", 8, False, False, 1501, 6451, 20597, "bc6f1185724cbd95"),
    ("RAMP", 3, True, True, 53, 87, 167, "8b18daac5c170646"),
    ("RAMP", 3, True, False, 78, 243, 558, "0797a6c87a631dfb"),
    ("RAMP", 3, False, False, 78, 223, 478, "141ccd5cb1287347"),
]


@cache
def _track_and_table(name: str, horizon: int) -> tuple[Track, MoveTable]:
    track = parse_track(RAMP_TRACK.encode()) if name == "RAMP" else load_track(
        TRACKS / f"{name}.toml")
    return track, build_move_table(track, horizon + 1)


def _digest(cnf: OneHotCnf) -> str:
    h = hashlib.sha256()
    for clause in sorted(tuple(sorted(c)) for c in cnf.clauses):
        h.update((" ".join(map(str, clause)) + " 0\n").encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("name, horizon, backward, cells, nvars, nclauses, literals, digest",
                         BEFORE)
def test_same_formula_as_before_the_split(name: str, horizon: int, backward: bool,
                                          cells: bool, nvars: int, nclauses: int,
                                          literals: int, digest: str) -> None:
    track, table = _track_and_table(name, horizon)
    cnf = build_onehot_cnf(track, table.rows, horizon, backward=backward, cells=cells)
    assert (cnf.nvars, len(cnf.clauses), cnf.literals) == (nvars, nclauses, literals)
    assert _digest(cnf) == digest
    assert max(abs(lit) for c in cnf.clauses for lit in c) == cnf.nvars


def test_the_guard_sees_a_changed_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrival without the start line (finish alone arrives) changes the formula: the digest
    is sensitive to the rule the builder takes from race_rules."""
    name, horizon, backward, cells, *_, digest = BEFORE[15]  # arcenes, T = 8
    track, table = _track_and_table(name, horizon)
    monkeypatch.setattr(onehot, "row_arrives", lambda progress, row: bool(row[FINISH]))
    cnf = build_onehot_cnf(track, table.rows, horizon, backward=backward, cells=cells)
    assert _digest(cnf) != digest


def test_variables_are_named_in_the_pool() -> None:
    """Every variable of the decoding maps has its `IDPool` name; the rest are auxiliaries."""
    track, table = _track_and_table("tiny_opening_shadow", 4)
    cnf = build_onehot_cnf(track, table.rows, 4)  # m* = 4: every family has variables
    assert cnf.vel
    x, y = track.car.position
    assert cnf.names[cnf.pos[(0, x, y, track.car.layer)]] == ("P", 0, (x, y, track.car.layer))
    assert all(cnf.names[v] == ("P", t, (cx, cy, lay)) for (t, cx, cy, lay), v in cnf.pos.items())
    assert all(cnf.names[v] == ("V", t, (vx, vy)) for (t, vx, vy), v in cnf.vel.items())
    assert [cnf.names[cnf.arrive[k]] for k in (1, 2, 3, 4)] == [("A", k) for k in (1, 2, 3, 4)]
    assert [cnf.names[v] for v in cnf.alive] == [("L", t) for t in range(5)]
    assert {name[0] for name in cnf.names.values()} == {"X", "Y", "L", "G", "A", "P", "V", "VX",
                                                        "VY"}
