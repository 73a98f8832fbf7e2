"""An analysis as a notebook cell shows it (`BaseAnalysis._repr_html_`): the picture of
`racecert analyze -o x.svg` beside a small table of the headline figures. The grid's rows
are `figure_rows` here; every profile hands out its own (`AnalysisProfile.html_rows`: a
lattice or cell-path analysis's are in `racecert.analysis.lattice.report`).

The table holds what a reader looks for first: m*, the exact number of optimal
trajectories, the yellow, green and blue lengths (exact sums of square roots, in cell
widths; the note gives a float for reading only), continuity into another lap, red
coverage and the design score; a figure that does not exist (the finish unreachable)
is left out. The full report is `Analysis.to_json()` or
`racecert analyze`. Every piece of text is escaped (`html.escape`): a track's name or a
figure can never inject markup into the notebook. Only inline ``style`` attributes are
used, so notebook front ends that drop ``<style>`` elements still show the layout.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from racecert.model.radicals import RadicalSum

if TYPE_CHECKING:
    from racecert.analysis.pipeline import Analysis

NONE = "—"
"""What a figure that does not exist on the track shows (the finish unreachable...)."""
TABLE_STYLE = "border-collapse:collapse;font-family:sans-serif;font-size:13px;margin:0"
CELL_STYLE = "border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top"
VALUE_STYLE = CELL_STYLE + ";font-family:monospace;overflow-wrap:break-word;max-width:24em"


def about_text(value: RadicalSum) -> str:
    """A length's float for reading, before its note ("≈ 4.828; "); nothing when the
    length is an integer (the exact value says it all)."""
    return "" if value.is_integer() else f"≈ {value.to_float():.3f}; "


def count_text(n: int) -> str:
    """'1 optimal trajectory', '3 optimal trajectories' (the exact integer)."""
    return f"{n} optimal trajector{'y' if n == 1 else 'ies'}"


def figure_rows(a: Analysis) -> list[tuple[str, str, str]]:
    """The headline figures as (label, value, note) rows, unescaped; when the finish is
    unreachable, m* shows `NONE`, its note says so, and no later figure is listed."""
    b = a.bfs
    t = a.track
    kind = a.kind if t.kind in (None, a.kind) else f"{a.kind} (declared {t.kind})"
    rows = [("track", t.name, f"{t.width}×{t.height} cells, {t.layers} layer(s)"),
            ("mode", a.mode, "state key of the searches"), ("kind", kind, "")]
    if not b.reachable:
        return [*rows, ("m*", NONE, "the finish is unreachable")]
    rows += [("m*", str(b.m_star), "minimum number of moves"),
             ("optimal trajectories", str(b.optimal_count), "exact count with m* moves"),
             ("final states", str(b.final_states), "distinct arrivals of them")]
    y = a.yellow
    if y.reachable and y.length is not None:
        rows.append(("yellow length", str(y.length),
                     f"{about_text(y.length)}least length of any arrival, {y.moves} moves"))
    r = a.representatives
    for name, ext, what in (("green", None if r is None else r.green, "shortest"),
                            ("blue", None if r is None else r.blue, "longest")):
        if ext is not None:
            rows.append((f"{name} length", str(ext.length), f"{about_text(ext.length)}{what} "
                         f"optimal trajectory; {count_text(ext.ties)} of that length"))
    rows.append(("continuity", *_continuity(a)))
    cov = a.coverage
    if cov is not None:
        rows.append(("red coverage", str(cov.fraction),
                     f"{len(cov.cells)} of {cov.drivable} drivable cells touched by optimal "
                     f"trajectories (≈ {100 * float(cov.fraction):.1f} %)"))
    if a.score is not None:
        rows.append(("score", f"{a.score.total:.2f}", f"{a.score.band} (docs/score.md)"))
    return rows


def _continuity(a: Analysis) -> tuple[str, str]:
    """Continuity's value and note: not applicable on a stage, else how many optimal
    trajectories continue into another lap (and m_cont when none does)."""
    c = a.continuity
    if c is None or not c.applicable:
        return "not applicable", "a stage: no second lap"
    value = f"{c.continuable_count} of {a.bfs.optimal_count}"
    note = (f"≈ {100 * float(c.percent):.1f} % continue into another lap (race rule); "
            f"{c.continuable_count_editor} by the editor's rule")
    if c.m_cont is not None:
        note += f"; m_cont = {c.m_cont} moves"
    return value, note


def rows_table(rows: list[tuple[str, str, str]]) -> str:
    """(label, value, note) rows as an HTML table, every text escaped."""
    cells = "".join(
        f'<tr><th style="{CELL_STYLE}" scope="row">{escape(label)}</th>'
        f'<td style="{VALUE_STYLE}">{escape(value)}</td>'
        f'<td style="{CELL_STYLE};color:#555">{escape(note)}</td></tr>'
        for label, value, note in rows)
    return f'<table class="racecert-analysis" style="{TABLE_STYLE}"><tbody>{cells}</tbody></table>'


def side_by_side(svg: str, table: str) -> str:
    """The picture `svg` (already escaped SVG markup) beside a figures table."""
    return ('<div class="racecert-analysis-view" style="display:flex;flex-wrap:wrap;'
            'gap:16px;align-items:flex-start">'
            f'<div style="flex:0 0 auto">{svg}</div>'
            f'<div style="flex:1 1 320px">{table}</div></div>')

