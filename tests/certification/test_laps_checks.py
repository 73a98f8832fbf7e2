"""The certify checks of kind, m_cont (both keys) and SAT continuity: each agrees on the
bundled tracks and disagrees on a corrupted input (a wrong oracle value, a dropped move in
the independent successor function, a flipped clause); budgets give `timeout`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from racecert.certification import laps_checks, sat_continuity_checks
from racecert.certification.certificate import certify
from racecert.certification.context import CertifyContext, CheckResult
from racecert.certification.laps_checks import (
    EDITOR_FIGURE,
    check_kind,
    check_m_cont,
    check_m_cont_editor,
)
from racecert.certification.sat_continuity_checks import check_sat_continuity
from racecert.independent import laps, sat_continuation
from racecert.independent.fastgeom import FastGeometry, Moves
from racecert.model.parse import load_track
from racecert.oracle import continuity as oracle_continuity

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
CHECKS = [check_sat_continuity, check_kind, check_m_cont, check_m_cont_editor]
RACE, EDITOR = sat_continuity_checks.FIGURES

# file: {figure label: (oracle value, independent value)} for the checks that agree
EXPECTED = {
    "tiny_circuit_nocont.toml": {"kind": ("circuit", "circuit"), "m_cont": (18, 18),
                                 RACE: ("0", "0"), EDITOR: ("0", "0")},
    "tiny_circuit_race_vs_editor.toml": {"kind": ("circuit", "circuit"),
                                         "m_cont": (None, None),
                                         RACE: ("72", "72"), EDITOR: ("24", "24")},
    "limits/opening_outlasts_lap.toml": {
        "kind": ("circuit", "circuit"), "m_cont": (5, 5), RACE: ("0", "0"), EDITOR: ("0", "0"),
        EDITOR_FIGURE: ("none (editor-key-finds-none)", "none (editor-key-finds-none)")},
    "limits/opening_ring_nocont.toml": {"kind": ("circuit", "circuit"), "m_cont": (4, 4),
                                        EDITOR_FIGURE: ("4", "4")},
    "limits/opening_ring_stage.toml": {"kind": ("stage", "stage"), "m_cont": (None, None)},
    "tiny_spiral_stage.toml": {"kind": ("stage", "stage"), "m_cont": (None, None)},
    "tiny_straight.toml": {"kind": ("stage", "stage")},
    "apertura.toml": {"kind": ("stage", "stage"), EDITOR_FIGURE: ("none (stage)",
                                                                  "none (stage)")},
}


def _by_figure(results: tuple[CheckResult, ...] | list[CheckResult]) -> dict[str, CheckResult]:
    return {r.figure: r for r in results}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_checks_agree_on_bundled_tracks(name: str) -> None:
    c = certify(load_track(TRACKS / name), CHECKS)
    got = _by_figure(c.results)
    assert set(got) == {"kind", "m_cont", EDITOR_FIGURE, RACE, EDITOR}
    assert all(r.verdict in ("agree", "not-applicable") for r in c.results), \
        [(r.figure, r.verdict, r.reason) for r in c.results if r.verdict != "agree"]
    for figure, (oracle, mine) in EXPECTED[name].items():
        r = got[figure]
        assert (r.verdict, r.bfs_value, r.method_value) == ("agree", oracle, mine), r
    verdicts = {f.name: f.verdict for f in c.figures}
    assert verdicts["kind"] == "agree"
    assert verdicts["m_cont"] == ("agree" if c.analysis.continuity is not None
                                  and c.analysis.continuity.m_cont is not None
                                  else "not-applicable")
    if c.analysis.kind == "circuit":
        assert verdicts["continuable_count"] == verdicts["continuable_count_editor"] == "agree"


def test_the_editor_key_finding_none_is_visible_in_the_certificate() -> None:
    """Issue #14: the exact key's m_cont is 5, the editor key finds none; the certificate
    says so as an arbitration of m_cont and among its other checks."""
    c = certify(load_track(TRACKS / "limits/opening_outlasts_lap.toml"), CHECKS)
    arb = [a for a in c.arbitrations if a.figure == "m_cont"]
    assert len(arb) == 1
    a = arb[0]
    assert (a.exact, a.editor, a.independent) == ("5", "none (editor-key-finds-none)", "5")
    assert a.agrees_with == ("exact",)
    j = c.to_json()
    assert [o["figure"] for o in j["other_checks"]] == [EDITOR_FIGURE]
    assert j["other_checks"][0]["method_value"] == "none (editor-key-finds-none)"
    assert j["figures"]["m_cont"]["value"] == 5 and j["figures"]["m_cont"]["verdict"] == "agree"


def _ctx(name: str) -> CertifyContext:
    track = load_track(TRACKS / name)
    c = certify(track, [])
    return CertifyContext(track, c.exact, c.editor, analysis=c.analysis)


def _with_continuity(ctx: CertifyContext, **changes: object) -> CertifyContext:
    a = ctx.analysis
    assert a is not None and a.continuity is not None
    return dataclasses.replace(ctx, analysis=dataclasses.replace(
        a, continuity=dataclasses.replace(a.continuity, **changes)))


def test_a_wrong_oracle_kind_disagrees() -> None:
    ctx = _ctx("tiny_circuit_nocont.toml")
    a = ctx.analysis
    assert a is not None
    wrong = dataclasses.replace(ctx, analysis=dataclasses.replace(
        a, aptitude=dataclasses.replace(a.aptitude, kind="stage")))
    r = check_kind(wrong)[0]
    assert (r.verdict, r.bfs_value, r.method_value) == ("disagree", "stage", "circuit")


def test_a_wrong_oracle_m_cont_or_its_count_disagrees() -> None:
    ctx = _ctx("tiny_circuit_nocont.toml")
    assert check_m_cont(ctx)[0].verdict == "agree"
    r = check_m_cont(_with_continuity(ctx, m_cont=19))[0]
    assert (r.verdict, r.bfs_value, r.method_value) == ("disagree", 19, 18)
    cont = ctx.analysis.continuity.cont_bfs  # type: ignore[union-attr]
    wrong = dataclasses.replace(cont, optimal_count=cont.optimal_count + 1)
    r = check_m_cont(_with_continuity(ctx, cont_bfs=wrong))[0]
    assert r.verdict == "disagree" and "oracle 5, independent 4" in r.reason
    # an oracle that claims an optimal arrival continues where none does
    r = check_m_cont(_with_continuity(ctx, m_cont=None, race=(True,) * len(ctx.analysis
                                                                          .continuity.race)))[0]
    assert r.verdict == "disagree" and "optimal-arrival-continues" in r.reason


def test_a_wrong_oracle_editor_m_cont_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    real = oracle_continuity.continuity

    def finds_five(track, bfs, aptitude=None, rules=None):  # type: ignore[no-untyped-def]
        return dataclasses.replace(real(track, bfs, aptitude, rules), m_cont=5)

    monkeypatch.setattr(oracle_continuity, "continuity", finds_five)
    c = certify(load_track(TRACKS / "limits/opening_outlasts_lap.toml"), [check_m_cont_editor])
    r = c.results[0]
    assert (r.verdict, r.bfs_value, r.method_value) == (
        "disagree", "5", "none (editor-key-finds-none)")
    assert c.status == "disagree"  # a disagreement outside the figures still counts


class _NoCorner(FastGeometry):
    """Drops every move into (20, 2), the corner below the start of the nocont ring."""

    def classify(self, *fields: np.ndarray) -> Moves:
        m = super().classify(*fields)
        code = m.code.copy()
        code[(m.x == 20) & (m.y == 2)] = 99
        return dataclasses.replace(m, code=code)


def test_a_dropped_move_in_the_continuation_decider_disagrees(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx("tiny_circuit_nocont.toml")
    laps_checks.clear_laps_cache()
    monkeypatch.setattr(laps, "FastGeometry", _NoCorner)
    try:
        kind = check_kind(ctx)[0]
        m_cont = check_m_cont(dataclasses.replace(ctx, max_states=20_000_000))[0]
    finally:
        laps_checks.clear_laps_cache()
    assert (kind.verdict, kind.method_value) == ("disagree", "stage")
    assert (m_cont.verdict, m_cont.bfs_value, m_cont.method_value) == ("disagree", 18, None)


def test_a_wrong_continuable_count_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the oracle's figures are corrupted, so the independent side's SAT decisions
    (the same track, final states and phase each time) are made once and reused."""
    real = sat_continuity_checks.decide_continuations
    decided: dict[tuple, object] = {}

    def once(track, sources, phase, **kwargs):  # type: ignore[no-untyped-def]
        key = (id(track), tuple(sources), phase)
        if key not in decided:
            decided[key] = real(track, sources, phase, **kwargs)
        return decided[key]

    monkeypatch.setattr(sat_continuity_checks, "decide_continuations", once)
    ctx = _ctx("tiny_circuit_race_vs_editor.toml")
    ok = check_sat_continuity(ctx)
    assert [r.verdict for r in ok] == ["agree", "agree"]
    r = check_sat_continuity(_with_continuity(ctx, continuable_count_editor=25))
    assert [x.verdict for x in r] == ["agree", "disagree"]
    assert "oracle 25, independent 24" in r[1].reason
    # per state: the oracle's answers must match, not only their sum
    c = ctx.analysis.continuity  # type: ignore[union-attr]
    r = check_sat_continuity(_with_continuity(ctx, editor=tuple(not e for e in c.editor)))
    assert r[1].verdict == "disagree" and "oracle" in r[1].reason
    assert len(decided) == 1


def test_a_dropped_move_in_the_sat_successors_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sat_continuation.geometry_successors

    def dropped(track):  # type: ignore[no-untyped-def]
        succ = real(track)
        return lambda s, ph: [(n, a) for n, a in succ(s, ph) if (n[0], n[1]) != (30, 6)]

    monkeypatch.setattr(sat_continuation, "geometry_successors", dropped)
    r = check_sat_continuity(_ctx("tiny_circuit_race_vs_editor.toml"))
    assert [x.verdict for x in r] == ["disagree", "disagree"]
    assert r[0].method_value == "0" and r[0].bfs_value == "72"


def test_a_flipped_clause_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sat_continuation.build_continuation_cnf

    def flipped(*args, **kwargs):  # type: ignore[no-untyped-def]
        cnf = real(*args, **kwargs)
        for v in cnf.goal:
            if [-v, *cnf.preds[v]] in cnf.clauses:
                cnf.clauses[cnf.clauses.index([-v, *cnf.preds[v]])] = [v, *cnf.preds[v]]
                break
        return cnf

    monkeypatch.setattr(sat_continuation, "build_continuation_cnf", flipped)
    r = check_sat_continuity(_ctx("tiny_circuit_race_vs_editor.toml"))
    assert "disagree" in [x.verdict for x in r]


def test_budgets_give_timeouts_naming_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A work budget (search states) is a `timeout`; the continuation closure's size
    budget is `skipped` (the closure is too large to model, nothing ran out)."""
    laps_checks.clear_laps_cache()
    ctx = dataclasses.replace(_ctx("tiny_circuit_nocont.toml"), max_states=20)
    try:
        for check in (check_kind, check_m_cont):
            r = check(ctx)[0]
            assert r.verdict == "timeout" and "budget of 20" in r.reason, r
    finally:
        laps_checks.clear_laps_cache()

    def tiny(*args, **kwargs):  # type: ignore[no-untyped-def]
        return real(*args, **{**kwargs, "max_nodes": 10})

    real = sat_continuation.decide_continuations
    monkeypatch.setattr(sat_continuity_checks, "decide_continuations", tiny)
    r = check_sat_continuity(_ctx("tiny_circuit_race_vs_editor.toml"))
    assert [x.verdict for x in r] == ["skipped", "skipped"]
    assert "size budget of 10 states" in r[0].reason


def test_proofs_are_written_with_an_output_folder(tmp_path: Path) -> None:
    ctx = dataclasses.replace(_ctx("tiny_circuit_nocont.toml"), out_dir=tmp_path)
    r = check_sat_continuity(ctx)
    proofs = dict(r[0].artefacts)
    written = [v for k, v in proofs.items() if k.startswith("proof ")]
    assert written and all(Path(p).exists() and Path(p).with_suffix(".cnf").exists()
                           for p in written)


def test_cli_out_publishes_every_continuity_proof(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`certify -o`: each refuted continuity CNF and its proof land beside the certificate,
    the JSON names their final paths, and no staging folder is left behind."""
    import json
    import re

    from racecert.certification import certificate
    from racecert.cli import main

    monkeypatch.setattr(certificate, "default_checks", lambda: [check_sat_continuity])
    out = tmp_path / "cert.json"
    main(["certify", str(TRACKS / "tiny_circuit_nocont.toml"), "--out", str(out)])
    capsys.readouterr()
    data = json.loads(out.read_text())
    checks = data["figures"]["continuable_count"]["checks"]
    arts = checks[0]["artefacts"]
    proofs = [v for k, v in arts.items() if re.fullmatch(r"proof( \d+)?", k)]
    # names relative to the certificate's folder, each proof beside its formula
    assert proofs and all((tmp_path / p).exists() and (tmp_path / p).with_suffix(".cnf")
                          .exists() for p in proofs)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == []


def test_the_headline_names_a_disagreeing_editor_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from racecert.cli.certify import human_report

    real = oracle_continuity.continuity

    def finds_five(track, bfs, aptitude=None, rules=None):  # type: ignore[no-untyped-def]
        return dataclasses.replace(real(track, bfs, aptitude, rules), m_cont=5)

    monkeypatch.setattr(oracle_continuity, "continuity", finds_five)
    c = certify(load_track(TRACKS / "limits/opening_outlasts_lap.toml"), [check_m_cont_editor])
    text = human_report(c)
    assert f"DISAGREEMENT on {EDITOR_FIGURE}" in text
    assert "m_cont: exact 5, editor 5" in text  # the arbitration line


def _open_ctx(max_states: int) -> CertifyContext:
    from benchmarks.generate import open_area
    from racecert.model.parse import parse_track

    track = parse_track(open_area(60, 30, 50).encode(), "open 60")
    c = certify(track, [])
    return CertifyContext(track, c.exact, c.editor, analysis=c.analysis, max_states=max_states)


def test_an_open_stage_is_decided_by_the_flood(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #19: the open-area benchmark's shape (60x60 here) is a stage by the cell flood
    from beyond the finish; the kind and m_cont checks say so without the exhaustive
    search, which at a budget of 1,000 states could not decide (shown by switching the
    flood off). m_cont needs the independent m* beside the flood (reachable or not), so
    it runs with the default budget."""
    laps_checks.clear_laps_cache()
    ctx = _open_ctx(1_000)
    try:
        kind = check_kind(ctx)[0]
        m_cont = check_m_cont(dataclasses.replace(ctx, max_states=20_000_000))[0]
        assert (kind.verdict, kind.bfs_value, kind.method_value) == ("agree", "stage", "stage")
        assert kind.method == laps_checks.FLOOD_METHOD
        assert "464 nodes reached, none past a legal start crossing" in kind.reason
        assert kind.work == "464 flood nodes"
        assert (m_cont.verdict, m_cont.bfs_value, m_cont.method_value) == ("agree", None, None)
        assert m_cont.method == laps_checks.FLOOD_METHOD and "none (stage)" in m_cont.reason
        undecided = dataclasses.replace(laps_checks.finish_flood(ctx.track), stage=False,
                                        witness=(0, 0, 0))
        monkeypatch.setattr(laps_checks, "finish_flood", lambda track: undecided)
        laps_checks.clear_laps_cache()
        r = check_kind(ctx)[0]
        assert (r.verdict, r.method) == ("timeout", laps_checks.METHOD)
        assert "budget of 1,000" in r.reason and "the flood does not decide" in r.reason
    finally:
        laps_checks.clear_laps_cache()


def test_a_stage_by_the_flood_against_a_wrong_oracle_disagrees() -> None:
    ctx = _ctx("tiny_spiral_stage.toml")
    a = ctx.analysis
    assert a is not None
    assert check_kind(ctx)[0].method == laps_checks.FLOOD_METHOD
    wrong = dataclasses.replace(ctx, analysis=dataclasses.replace(
        a, aptitude=dataclasses.replace(a.aptitude, kind="circuit")))
    r = check_kind(wrong)[0]
    assert (r.verdict, r.bfs_value, r.method_value) == ("disagree", "circuit", "stage")


def test_circuits_are_still_decided_by_the_search() -> None:
    r = check_kind(_ctx("tiny_circuit_nocont.toml"))[0]
    assert r.method == laps_checks.METHOD and r.method_value == "circuit"
