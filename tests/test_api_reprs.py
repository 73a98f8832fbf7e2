"""What a notebook shows of the result types (issue #22 item 3): `Analysis._repr_html_`
and `Certificate._repr_html_`, called as a notebook calls them on a real analysis and a
real certificate of tracks/tiny_straight.toml, parsed back with `html.parser`; and the
numpydoc docstrings of the public entry points and result types, examples run."""

from __future__ import annotations

import dataclasses
import doctest
from html.parser import HTMLParser
from pathlib import Path

import pytest

import racecert
from racecert.analysis.pipeline import Analysis
from racecert.certification.certificate import (
    FIGURE_VERDICTS,
    Certificate,
    FigureVerdict,
    certify,
)
from racecert.certification.certificate_html import STATUS_STYLES, VERDICT_STYLES
from racecert.certification.context import Verdict
from racecert.certification.figures import FIGURE_NAMES
from racecert.race.engine import CarResult, RaceResult, run_race

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tracks" / "tiny_straight.toml"
HOSTILE = '<script>alert("x")</script> & <b>bold</b> \'q\''
VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr"}


class Page(HTMLParser):
    """The parsed fragment: every start tag with its attributes, every text, and whether
    each end tag closed the innermost open element (well-formedness)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.errors: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}  # table class -> tbody rows -> cell texts
        self._table: list[str] = []
        self.row_attrs: dict[str, list[dict[str, str | None]]] = {}
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._table.append(a.get("class") or "")
        if tag == "tr" and "tbody" in self.open and self._table:
            self.rows.setdefault(self._table[-1], []).append([])
            self.row_attrs.setdefault(self._table[-1], []).append(a)
        if tag in ("td", "th") and "tbody" in self.open and self._table:
            self.rows[self._table[-1]][-1].append("")
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))  # <path/> in the SVG: opens nothing

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
            return
        self.open.pop()
        if tag == "table":
            self._table.pop()

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self._table and {"td", "th"} & set(self.open) and "tbody" in self.open:
            row = self.rows[self._table[-1]][-1]
            if row:
                row[-1] += data

    @property
    def text(self) -> str:
        return "".join(self.texts)

    def well_formed(self) -> bool:
        return not self.errors and not self.open


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the docstring examples use paths relative to the repository


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return racecert.analyze(TINY)


@pytest.fixture(scope="module")
def certificate() -> Certificate:
    return racecert.certify(TINY, count_limit=100)  # the cheapest full run the tests use


def _with_results(c: Certificate, change) -> Certificate:
    """`c` with each check result replaced by `change(result)` (a corrupted certificate)."""
    return dataclasses.replace(c, results=tuple(change(r) for r in c.results))


def _hostile(track):
    return dataclasses.replace(track, name=HOSTILE)


def test_the_analysis_shows_its_picture_beside_the_headline_figures(analysis) -> None:
    page = Page(analysis._repr_html_())
    assert page.well_formed(), page.errors
    assert [t for t, _ in page.tags].count("svg") == 1
    rows = {r[0]: r[1] for r in page.rows["racecert-analysis"]}
    assert list(rows)[:3] == ["track", "mode", "kind"]
    assert rows["m*"] == "3" and rows["optimal trajectories"] == "1"
    assert rows["yellow length"] == rows["green length"] == rows["blue length"] == "6"
    assert rows["continuity"] == "not applicable" and rows["red coverage"] == "7/8"
    assert rows["score"] == f"{analysis.score.total:.2f}"


def test_a_circuit_shows_its_continuity_and_irrational_lengths() -> None:
    a = racecert.analyze("tracks/4_esquinas.toml")
    rows = {r[0]: r[1:] for r in Page(a._repr_html_()).rows["racecert-analysis"]}
    c = a.continuity
    assert rows["continuity"][0] == f"{c.continuable_count} of {a.bfs.optimal_count}"
    green = a.representatives.green
    assert rows["green length"][0] == str(green.length)
    assert rows["green length"][1].startswith(f"≈ {green.length.to_float():.3f}; shortest")
    assert f"{green.ties} optimal trajector" in rows["green length"][1]


def test_an_unreachable_finish_shows_no_figures(analysis) -> None:
    gone = dataclasses.replace(analysis, bfs=dataclasses.replace(
        analysis.bfs, reachable=False, m_star=None))
    page = Page(gone._repr_html_())
    rows = {r[0]: r[1:] for r in page.rows["racecert-analysis"]}
    assert page.well_formed() and rows["m*"] == ["—", "the finish is unreachable"]
    assert "optimal trajectories" not in rows


def test_the_certificate_has_one_row_per_figure_with_its_verdict(certificate) -> None:
    c = certificate
    page = Page(c._repr_html_())
    assert page.well_formed(), page.errors
    rows = page.rows["racecert-figures"]
    attrs = page.row_attrs["racecert-figures"]
    assert len(rows) == len(c.figures) == len(FIGURE_NAMES)
    assert [r[0] for r in rows] == list(FIGURE_NAMES)
    by_name = {f.name: f for f in c.figures}
    for row, a in zip(rows, attrs, strict=True):
        f = by_name[row[0]]
        assert a["data-verdict"] == f.verdict
        assert row[2] == f"{VERDICT_STYLES[f.verdict].symbol} {f.verdict}"
    m_star = rows[FIGURE_NAMES.index("m_star")]
    assert m_star[1] == "3" and m_star[3] == ("second implementation, checked proof, "
                                              "solver model")
    assert rows[FIGURE_NAMES.index("m_cont")][2] == "– not-applicable"
    headline = next(a for t, a in page.tags if a.get("class") == "racecert-headline")
    assert headline["data-status"] == "certified" == c.status
    assert page.text.index(c.headline) < page.text.index("move_validity")  # headline first
    other = page.rows["racecert-other-checks"]
    assert [r[0] for r in other] == [r.figure for r in c.other_checks]


def test_a_lattice_certificate_shows_its_own_figures(chicane_certificate) -> None:
    """A cell-path certificate (the start-list profiles' `LatticeCertificate`) shows the
    same headline and one row per figure of its profile, with their verdicts: that of
    `racecert.certify("cellpath/chicane")` (tests/conftest.py, shared with test_api.py)."""
    c = chicane_certificate
    page = Page(c._repr_html_())
    assert page.well_formed(), page.errors
    rows = page.rows["racecert-figures"]
    assert [r[0] for r in rows] == [f.name for f in c.figures]
    m_star = rows[[f.name for f in c.figures].index("m_star")]
    assert m_star[1] == "11" and m_star[2] == "✓ agree"
    headline = next(a for t, a in page.tags if a.get("class") == "racecert-headline")
    assert headline["data-status"] == c.status == "certified"
    assert "racecert-other-checks" not in page.rows


def test_a_corrupted_certificate_shows_the_disagreement(certificate) -> None:
    """One figure's checks made to disagree (with markup in the reason): the headline and
    that row say disagree, no other row does, and the markup stays text."""
    reason = '<img src=x onerror="alert(1)"> found 4 moves'

    def corrupt(r):
        return dataclasses.replace(r, verdict=Verdict.DISAGREE, method_value=4,
                                   reason=reason) if r.figure == "m*" else r

    bad = _with_results(certificate, corrupt)
    assert bad.status == "disagree"
    page = Page(bad._repr_html_())
    assert page.well_formed(), page.errors
    verdicts = {a["data-figure"]: a["data-verdict"]
                for a in page.row_attrs["racecert-figures"]}
    assert verdicts["m_star"] == "disagree"
    assert [n for n, v in verdicts.items() if v == "disagree"] == ["m_star"]
    row = page.rows["racecert-figures"][FIGURE_NAMES.index("m_star")]
    assert row[2] == "✗ disagree" and row[3] == "—"
    headline = next(a for t, a in page.tags if a.get("class") == "racecert-headline")
    assert headline["data-status"] == "disagree"
    assert "DISAGREEMENT on m_star" in page.text
    assert not any(t in ("img", "script") for t, _ in page.tags)


def test_every_verdict_has_its_own_word_symbol_and_colour(certificate) -> None:
    """Disagree, timeout, skipped, unchecked and not-applicable rows too, each told apart
    without colour (word and symbol) and by colour."""
    def unconfirm(r):
        if r.figure == "kind":
            return dataclasses.replace(r, verdict=Verdict.DISAGREE)
        if r.figure.startswith("green"):
            return dataclasses.replace(r, verdict=Verdict.TIMEOUT)
        if r.figure.startswith("blue"):
            return dataclasses.replace(r, verdict=Verdict.SKIPPED)
        return r

    bare = certify(racecert.load_track(TINY), checks=[])  # no check: every figure unchecked
    seen: dict[str, str] = {}
    for c in (certificate, _with_results(certificate, unconfirm), bare):
        page = Page(c._repr_html_())
        assert page.well_formed(), page.errors
        for row, a in zip(page.rows["racecert-figures"], page.row_attrs["racecert-figures"],
                          strict=True):
            seen[a["data-verdict"]] = row[2]
    assert set(seen) == set(FIGURE_VERDICTS)
    assert all(text.endswith(f" {v}") for v, text in seen.items())
    assert bare.status == "partial" and Page(bare._repr_html_()).tags[1][1][
        "data-status"] == "partial"
    for styles in (VERDICT_STYLES, STATUS_STYLES):
        assert len({s.symbol for s in styles.values()}) == len(styles)
        assert len({s.background for s in styles.values()}) == len(styles)
    assert set(VERDICT_STYLES) == set(FIGURE_VERDICTS) and set(STATUS_STYLES) == {
        "certified", "partial", "disagree"}


def test_hostile_text_in_a_track_name_is_escaped(analysis, certificate) -> None:
    track = _hostile(analysis.track)
    a = racecert.analyze(track)  # a real analysis of the renamed track
    c = dataclasses.replace(certificate, track=track,
                            analysis=dataclasses.replace(certificate.analysis, track=track))
    for html in (a._repr_html_(), c._repr_html_()):
        page = Page(html)
        assert page.well_formed(), page.errors
        assert not any(t in ("script", "b") for t, _ in page.tags)
        assert HOSTILE in page.text  # shown as text, exactly


def _run_examples(obj, name: str) -> None:
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(obj, name, globs={})
    assert tests and tests[0].examples, name
    for t in tests:
        runner.run(t)
    assert runner.failures == 0, name


@pytest.mark.parametrize("obj", [racecert.load_track, run_race, Analysis, Certificate,
                                 RaceResult], ids=lambda o: o.__name__)
def test_docstring_examples_run(obj) -> None:
    _run_examples(obj, obj.__name__)


@pytest.mark.parametrize("fn", [racecert.load_track, run_race], ids=lambda f: f.__name__)
def test_entry_points_have_numpydoc_sections(fn) -> None:
    for section in ("Parameters", "Returns", "Raises", "Examples"):
        assert f"\n    {section}\n    ---" in fn.__doc__, (fn.__name__, section)


@pytest.mark.parametrize("cls", [Analysis, Certificate, FigureVerdict, RaceResult, CarResult],
                         ids=lambda c: c.__name__)
def test_result_types_document_every_field(cls) -> None:
    """An Attributes section naming every field: a field added later fails here until it
    is documented."""
    doc = cls.__doc__
    assert "\n    Attributes\n    ----------\n" in doc
    attributes = doc.split("Attributes\n    ----------\n")[1].split("\n    Examples")[0]
    for f in dataclasses.fields(cls):
        assert f"\n    {f.name} : " in "\n" + attributes, (cls.__name__, f.name)


def test_a_lattice_analysis_shows_its_picture_beside_its_figures() -> None:
    """A lattice track in a notebook: the SVG beside its own figures (m*, count, starts,
    green and blue), every text escaped."""
    from racecert.analysis.lattice.pipeline import analyze_lattice
    from racecert.model.bundled import track_path
    from racecert.model.parse import load_track

    track = load_track(track_path("lattice/riddler"))
    a = analyze_lattice(dataclasses.replace(track, name=HOSTILE))
    page = Page(a._repr_html_())
    assert page.well_formed(), page.errors
    assert [t for t, _ in page.tags].count("svg") == 1
    assert not any(t == "script" for t, _ in page.tags)
    rows = {r[0]: r[1] for r in page.rows["racecert-analysis"]}
    assert rows["track"] == HOSTILE  # shown as text, not markup
    assert rows["accelerations"] == "moore"
    assert rows["m*"] == str(a.bfs.m_star) and rows["optimal trajectories"] == str(
        a.bfs.optimal_count)
    assert rows["green length"] == str(a.green.length)
    assert rows["blue length"] == str(a.blue.length)
