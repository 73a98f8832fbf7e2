"""The RESULT.json schema: every key, its type and range (docs/crosscheck.md).

`parse_result(data)` checks a decoded RESULT.json against the schema and
returns an `OtherResult`: the given figures as typed values, keyed by their
dotted path ("green.length_exact", "score.components.coverage.exact"), plus
the keys that are not compared (`Skipped`): keys of racecert's own report
that are not figures (timings, search statistics, the file's tolerance) and
unknown keys. Unknown keys are reported, never fatal; a known key with a
value of the wrong type or out of range is a `ResultError` naming the path.

Values: counts are non-negative integers, as JSON integers or decimal strings
of ASCII digits, at most `MAX_DIGITS` digits; exact fractions are "p/q" or
"n" strings; exact lengths are radical-sum strings (`RadicalText`, never
factored); other numbers are finite JSON numbers within the key's range;
`null` means "not given".

>>> r = parse_result({"m_star": 4, "green": "5 + sqrt(2)", "seconds": 0.1, "colour": 1})
>>> sorted(r.figures), [(s.key, s.unknown) for s in r.skipped]
(['green.length', 'm_star'], [('seconds', False), ('colour', True)])
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from racecert.certification.radical_text import RadicalText
from racecert.certification.result_file import MAX_DIGITS, ResultError

MAX_MOVES = 100_000
"""Most moves of a given trajectory (positions or accelerations)."""
COORDINATE_LIMIT = 2**31
"""Positions are integers in [-2^31, 2^31)."""

_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_FRACTION = re.compile(r"(?P<p>[0-9]+)(?:/(?P<q>[0-9]+))?", re.ASCII)
_SHA256 = re.compile(r"[0-9a-fA-F]{64}", re.ASCII)

Leaf = Callable[[str, Any], Any]
"""(dotted path, raw JSON value) -> typed value, or ResultError."""


@dataclass(frozen=True)
class Skipped:
    """A key that is not compared: `reason` says why; `unknown` if the schema lacks it."""

    key: str
    value: str
    reason: str
    unknown: bool


@dataclass(frozen=True)
class OtherResult:
    """A validated RESULT.json: typed figures by dotted path, and the keys not compared."""

    figures: dict[str, Any]
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class Node:
    """An object of the schema: typed `fields`, keys accepted but not compared
    (`ignored`: key -> reason), and optionally a bare value standing for one field
    (a trajectory given as just its length, a score as just its total)."""

    fields: dict[str, Leaf | Node]
    ignored: dict[str, str] = field(default_factory=dict)
    bare: str | None = None


def shown(text: str, width: int = 40) -> str:
    """`text` safe for one terminal line: escaped unless printable ASCII, cut to `width`."""
    s = text if text.isascii() and text.isprintable() else ascii(text)
    return s if len(s) <= width else s[: width - 3] + "..."


def brief(value: Any) -> str:
    """A short one-line rendering of a raw JSON value, for messages."""
    return shown(repr(value))


# -- leaves ------------------------------------------------------------------------------


def count(path: str, v: Any) -> int:
    """A non-negative integer: a JSON integer or a decimal string of ASCII digits."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return v
    if isinstance(v, str) and len(v) <= MAX_DIGITS and _DIGITS.fullmatch(v):
        return int(v)
    raise ResultError(f"{path}: expected a non-negative integer or a decimal string of at "
                      f"most {MAX_DIGITS} ASCII digits, got {brief(v)}")


def boolean(path: str, v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise ResultError(f"{path}: expected true or false, got {brief(v)}")


def choice(*options: str) -> Leaf:
    """A string among `options`."""
    def parse(path: str, v: Any) -> str:
        if isinstance(v, str) and v in options:
            return v
        raise ResultError(f"{path}: expected one of {', '.join(options)}, got {brief(v)}")
    return parse


def number(lo: float, hi: float) -> Leaf:
    """A finite JSON number in [lo, hi], as a float."""
    def parse(path: str, v: Any) -> float:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                x = float(v)
            except OverflowError:
                x = math.inf
            if math.isfinite(x) and lo <= x <= hi:
                return x
            raise ResultError(f"{path}: {brief(v)} is out of range [{lo:g}, {hi:g}]")
        raise ResultError(f"{path}: expected a number, got {brief(v)}")
    return parse


def fraction(path: str, v: Any) -> Fraction:
    """An exact fraction in [0, 1]: "p/q" or "n" (ASCII digits), or a JSON integer."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    m = _FRACTION.fullmatch(v) if isinstance(v, str) and len(v) <= 2 * MAX_DIGITS + 1 else None
    if m is None or len(m.group("p")) > MAX_DIGITS or len(m.group("q") or "") > MAX_DIGITS:
        raise ResultError(f"{path}: expected an exact fraction \"p/q\" (ASCII digits, at most "
                          f"{MAX_DIGITS} each), got {brief(v)}")
    q = int(m.group("q") or 1)
    if q == 0:
        raise ResultError(f"{path}: zero denominator in {brief(v)}")
    x = Fraction(int(m.group("p")), q)
    if x > 1:
        raise ResultError(f"{path}: {brief(v)} is out of range [0, 1]")
    return x


def exact_length(path: str, v: Any) -> RadicalText:
    """An exact length: a radical-sum string with no negative term."""
    if not isinstance(v, str):
        raise ResultError(f"{path}: expected an exact length string such as "
                          f"\"7 + 3*sqrt(2)\", got {brief(v)}")
    try:
        r = RadicalText.parse(v)
    except ValueError as exc:
        raise ResultError(f"{path}: not an exact length: {exc}") from None
    if r.negative:
        raise ResultError(f"{path}: a length is a sum of non-negative terms, got {brief(v)}")
    return r


_LENGTH_NUMBER = number(0.0, math.inf)


def length(path: str, v: Any) -> RadicalText | float:
    """A length: an exact radical-sum string, or a non-negative number."""
    if isinstance(v, str):
        return exact_length(path, v)
    return _LENGTH_NUMBER(path, v)


def _pairs(path: str, v: Any, least: int, what: str, ok: Callable[[int], bool]
           ) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, list) or not least <= len(v) <= MAX_MOVES + least - 1:
        raise ResultError(f"{path}: expected a list of {least} to {MAX_MOVES + least - 1} "
                          f"{what} pairs, got {brief(v)}")
    out = []
    for i, p in enumerate(v):
        if (not isinstance(p, list) or len(p) != 2
                or not all(isinstance(c, int) and not isinstance(c, bool) and ok(c) for c in p)):
            raise ResultError(f"{path}[{i}]: expected {what} [a, b], got {brief(p)}")
        out.append((p[0], p[1]))
    return tuple(out)


def positions(path: str, v: Any) -> tuple[tuple[int, int], ...]:
    """P0..Pm: at least two [x, y] integer pairs in [-2^31, 2^31)."""
    return _pairs(path, v, 2, "[x, y] integer",
                  lambda c: -COORDINATE_LIMIT <= c < COORDINATE_LIMIT)


def accelerations(path: str, v: Any) -> tuple[tuple[int, int], ...]:
    """One [ax, ay] per move, each component -1, 0 or 1."""
    return _pairs(path, v, 1, "acceleration (-1, 0 or 1)", lambda c: -1 <= c <= 1)


def sha256(path: str, v: Any) -> str:
    if isinstance(v, str) and _SHA256.fullmatch(v):
        return v.lower()
    raise ResultError(f"{path}: expected 64 hexadecimal digits, got {brief(v)}")


# -- the schema --------------------------------------------------------------------------

KIND = choice("stage", "circuit")
PERCENT = number(0.0, 100.0)
UNIT = number(0.0, 1.0)

NOT_A_FIGURE = "not a figure (a label or where the file was)"
TIMING = "a timing, not a figure"
WORK = "engine-specific work count, not a figure"
SEARCH = "racecert's own search statistics, not a figure"

TRAJECTORY: dict[str, Leaf | Node] = {
    "moves": count, "length": length, "length_exact": exact_length,
    "positions": positions, "accelerations": accelerations,
}
TIED_TRAJECTORY: dict[str, Leaf | Node] = {**TRAJECTORY, "ties": count}


def _component(**extra: Leaf) -> Node:
    return Node({"value": UNIT, "exact": fraction, "weight": count,
                 "effective_weight": UNIT, **extra})


SCORE = Node({
    "total": PERCENT, "band": choice("rejected", "weak", "fair", "good", "excellent"),
    "raw": PERCENT, "capped": boolean, "corrector": UNIT, "corrector_exact": fraction,
    "components": Node({
        "coverage": _component(), "expert_advantage": _component(),
        "diversity": Node({**_component(euclid_sep=UNIT, euclid_sep_exact=fraction,
                                        spatial_sep=UNIT, spatial_sep_exact=fraction).fields},
                          {"euclid_sep_interval": "racecert's own enclosure of euclid_sep"}),
        "continuity": _component(),
    }),
}, bare="total")

RESULT = Node({
    "sha256": sha256,
    "mode": choice("exact", "editor"),
    "reachable": boolean,
    "m_star": count,
    "optimal_count": count,
    "final_states": count,
    "kind": KIND,
    "kind_declared": KIND,
    "kind_matches_declared": boolean,
    "aptitude": Node({"kind": KIND, "topological": boolean, "kinematic": boolean},
                     {"states_explored": WORK}),
    "continuity_applicable": boolean,
    "continuable_count": count,
    "continuable_count_editor": count,
    "continuable_percent": PERCENT,
    "continuable_percent_editor": PERCENT,
    "continuable_fraction_exact": fraction,
    "m_cont": count,
    "yellow": Node(TRAJECTORY, {"selection": SEARCH, "certified_minimum": SEARCH,
                                "states_settled": SEARCH}, bare="length"),
    "green": Node(TIED_TRAJECTORY, bare="length"),
    "blue": Node(TIED_TRAJECTORY, bare="length"),
    "trai": Node(TIED_TRAJECTORY, bare="length"),
    "troi": Node(TIED_TRAJECTORY, bare="length"),
    "tray": Node(TRAJECTORY, bare="length"),
    "representatives_moves": count,
    "coverage": Node({"red": fraction, "red_float": UNIT, "touched_cells": count,
                      "drivable_cells": count}),
    "score": SCORE,
}, {
    "track": NOT_A_FIGURE, "path": NOT_A_FIGURE, "seconds": TIMING, "timings": TIMING,
    "states_explored": WORK, "bound": SEARCH,
    "slots": "per-slot figures are not compared (cross-check each slot as its own track)",
    "tolerance": "the tolerances are the checker's (docs/crosscheck.md), never the file's",
    "m_cont_null_reason": "why m_cont is null: a note, not a figure",
    "m_cont_exact": "the exact key's m_cont beside an editor-mode report: cross-check in "
                    "exact mode to compare it",
    "opening_active_at_arrival": "follows from the track's opening rule and m*",
    "opening_moves_after_arrival": "follows from the track's opening rule and m*",
})
"""Every key of a RESULT.json; racecert's own `analyze --json` output and library
records fit it, so they can be cross-checked as they are."""


def parse_result(data: Any) -> OtherResult:
    """Validate a decoded RESULT.json (docs/crosscheck.md); ResultError when malformed.

    >>> parse_result({"optimal_count": "3"}).figures
    {'optimal_count': 3}
    """
    if not isinstance(data, dict):
        raise ResultError("the top level must be a JSON object")
    figures: dict[str, Any] = {}
    skipped: list[Skipped] = []
    _walk(RESULT, "", data, figures, skipped)
    return OtherResult(figures, tuple(skipped))


def _walk(node: Node, path: str, raw: Any, figures: dict[str, Any],
          skipped: list[Skipped]) -> None:
    prefix = f"{path}." if path else ""
    if not isinstance(raw, dict):
        if node.bare is None:
            raise ResultError(f"{path}: expected an object, got {brief(raw)}")
        _take(node.fields[node.bare], prefix + node.bare, raw, figures, skipped)
        return
    for key, value in raw.items():
        where = prefix + shown(key, 60)
        if key in node.fields:
            _take(node.fields[key], where, value, figures, skipped)
        elif key in node.ignored:
            skipped.append(Skipped(where, brief(value), node.ignored[key], False))
        else:
            skipped.append(Skipped(where, brief(value), "unknown key, not compared", True))


def _take(spec: Leaf | Node, path: str, value: Any, figures: dict[str, Any],
          skipped: list[Skipped]) -> None:
    if value is None:  # null = not given (racecert writes null for absent figures)
        return
    if isinstance(spec, Node):
        _walk(spec, path, value, figures, skipped)
    else:
        figures[path] = spec(path, value)
