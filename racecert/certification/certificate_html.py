"""A `Certificate` as a notebook cell shows it (`Certificate._repr_html_`).

The headline first (the same line as `Certificate.headline`: the status, every figure not
confirmed, every figure that rests on the second implementation alone), then one table
row per figure of `analyze`: its value, its verdict, the kinds of method that confirmed it
(`FigureVerdict.confirmed_by`), how many of its checks agree, and why. Checks that address
no figure (the editor key's m_cont) follow in a second table, since they count for the
status too.

Each verdict is told apart three ways, so no reader depends on colour: a word (the
certificate's own: agree, disagree, timeout, skipped, unchecked, not-applicable), a
symbol, and a colour from the Okabe–Ito palette, which stays distinct under the common
colour-vision deficiencies; a disagreement alone is white on a dark background, so it
stands out in lightness as well as hue. Every piece of text is escaped (`html.escape`),
and only inline ``style`` attributes are used (some notebook front ends drop ``<style>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from racecert.certification.context import CheckResult, MethodKind, Verdict

if TYPE_CHECKING:
    from racecert.certification.certificate import Certificate, FigureVerdict


@dataclass(frozen=True)
class VerdictStyle:
    """How one verdict is shown: a symbol beside its word, text and background colours."""

    symbol: str
    color: str
    background: str
    meaning: str

    def badge(self, word: str) -> str:
        """The verdict as an inline badge: symbol and word, coloured, with its meaning as
        a tooltip."""
        return (f'<span class="racecert-verdict" title="{escape(self.meaning)}" '
                f'style="color:{self.color};background:{self.background};padding:1px 6px;'
                f'border-radius:3px;white-space:nowrap;font-weight:bold">'
                f'{escape(self.symbol)} {escape(word)}</span>')


VERDICT_STYLES: dict[str, VerdictStyle] = {
    "agree": VerdictStyle("✓", "#00543c", "#d4eee3", "confirmed by an independent check"),
    "disagree": VerdictStyle("✗", "#ffffff", "#a33f00",
                             "an independent check disagrees with the oracle"),
    "timeout": VerdictStyle("◷", "#5e3c00", "#fbe0a8",
                            "a check used up its work budget without an answer"),
    "skipped": VerdictStyle("⊘", "#0a4a78", "#d6e9f8",
                            "a check was not run: over a size budget"),
    "unchecked": VerdictStyle("?", "#4d4700", "#f4ee9c",
                              "no independent check covers it on this track"),
    "not-applicable": VerdictStyle("–", "#4a4a4a", "#ececec",
                                   "the figure does not exist on this track"),
}
"""One style per figure verdict (and per check verdict: `Verdict` uses the same words)."""
STATUS_STYLES: dict[str, VerdictStyle] = {
    "certified": VerdictStyle("✓", "#00543c", "#d4eee3",
                              "every figure that exists is confirmed independently"),
    "partial": VerdictStyle("?", "#4d4700", "#f4ee9c",
                            "nothing disagrees, but some figure is not confirmed"),
    "disagree": VerdictStyle("✗", "#ffffff", "#a33f00", "an independent check disagrees"),
}
"""The headline's style per certificate status (the colours of agree, unchecked, disagree)."""
METHOD_LABELS = {
    MethodKind.SECOND_IMPLEMENTATION: ("second implementation",
                                       "separately written code computed the same figure"),
    MethodKind.CHECKED_PROOF: ("checked proof",
                               "a SAT model whose refutations come with a DRUP proof checked "
                               "by racecert's own checker"),
    MethodKind.SOLVER_MODEL: ("solver model",
                              "a CP-SAT model, or a SAT model without a proof"),
    MethodKind.ENUMERATION: ("enumeration", "every solution enumerated and counted"),
}
TABLE_STYLE = "border-collapse:collapse;font-size:13px;margin:6px 0"
CELL = "border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top"
VALUE = CELL + ";font-family:monospace;overflow-wrap:anywhere;max-width:24em"
HEAD = "padding:3px 8px;text-align:left;vertical-align:bottom;border-bottom:2px solid #888"
HEADERS = ("figure", "value", "verdict", "confirmed by", "checks", "why")


def _value(v: object) -> str:
    """A figure's value as text: exact as the certificate holds it; `—` where none."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def _confirmed_by(kinds: tuple[MethodKind, ...]) -> str:
    """The kinds of method as escaped words, each with its meaning as a tooltip."""
    if not kinds:
        return "—"
    return ", ".join(f'<span title="{escape(METHOD_LABELS[k][1])}">'
                     f"{escape(METHOD_LABELS[k][0])}</span>" for k in kinds)


def _why(f: FigureVerdict) -> str:
    """The verdict's reason, or for a figure only the second implementation confirmed,
    why no solver model did (the headline's note, per row)."""
    alone = f.second_implementation_only
    return f.reason if alone is None else f"second implementation only: {alone}"


def _header() -> str:
    return "<thead><tr>" + "".join(
        f'<th style="{HEAD}" scope="col">{h}</th>'
        for h in HEADERS) + "</tr></thead>"


def figure_row(f: FigureVerdict) -> str:
    """One figure's table row (escaped); `data-figure` and `data-verdict` name it for
    scripts and tests."""
    agreeing = sum(c.verdict == Verdict.AGREE for c in f.checks)
    return (f'<tr data-figure="{escape(f.name)}" data-verdict="{escape(f.verdict)}">'
            f'<th style="{CELL}" scope="row">{escape(f.name)}</th>'
            f'<td style="{VALUE}">{escape(_value(f.value))}</td>'
            f'<td style="{CELL}">{VERDICT_STYLES[f.verdict].badge(f.verdict)}</td>'
            f'<td style="{CELL}">{_confirmed_by(f.confirmed_by)}</td>'
            f'<td style="{CELL};white-space:nowrap">{agreeing}/{len(f.checks)} agree</td>'
            f'<td style="{CELL};color:#444">{escape(_why(f))}</td></tr>')


def _other_row(r: CheckResult) -> str:
    verdict = r.verdict.value
    return (f'<tr data-check="{escape(r.figure)}" data-verdict="{escape(verdict)}">'
            f'<th style="{CELL}" scope="row">{escape(r.figure)}</th>'
            f'<td style="{CELL}">{escape(r.method)}</td>'
            f'<td style="{CELL}">{VERDICT_STYLES[verdict].badge(verdict)}</td>'
            f'<td style="{CELL};color:#444">{escape(r.reason)}</td></tr>')


def headline_html(c: Certificate) -> str:
    """The headline as a bordered paragraph in the colour, symbol and word of the status."""
    style = STATUS_STYLES[c.status]
    border = style.color if c.status == "certified" else style.background
    return (f'<p class="racecert-headline" data-status="{escape(c.status)}" '
            f'style="border-left:6px solid {border};padding:4px 8px;margin:4px 0;'
            f'background:#fafafa">{style.badge(c.status)} {escape(c.headline)}</p>')


def render_html(c: Certificate) -> str:
    """The whole certificate as an HTML fragment (headline, figures, other checks)."""
    t = c.track
    about = (f"{t.name} — {t.width}×{t.height} cells, sha256 {t.sha256[:12]}…, "
             f"{len(c.results)} checks, {c.seconds:.1f} s")
    rows = "".join(figure_row(f) for f in c.figures)
    parts = ['<div class="racecert-certificate" style="font-family:sans-serif;'
             'font-size:13px">', headline_html(c),
             f'<p style="margin:4px 0;color:#444">{escape(about)}</p>',
             f'<table class="racecert-figures" style="{TABLE_STYLE}">{_header()}'
             f"<tbody>{rows}</tbody></table>"]
    other = c.other_checks
    if other:
        head = "".join(f'<th style="{HEAD}" scope="col">{h}</th>'
                       for h in ("other check", "method", "verdict", "why"))
        parts.append(f'<table class="racecert-other-checks" style="{TABLE_STYLE}">'
                     f"<thead><tr>{head}</tr></thead><tbody>"
                     + "".join(_other_row(r) for r in other) + "</tbody></table>")
    legend = " · ".join(s.badge(word) + f" {escape(s.meaning)}"
                        for word, s in VERDICT_STYLES.items())
    parts += [f'<p style="margin:4px 0;color:#444;line-height:1.8">{legend}</p>', "</div>"]
    return "".join(parts)
