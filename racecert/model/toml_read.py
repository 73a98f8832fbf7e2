"""Read TOML text within fixed bounds: every failure is a `TrackError`, never a traceback.

`tomllib` recurses once per nested array or inline table (a few thousand
levels end in `RecursionError`) and converts integer literals with `int()`
(more than 4300 digits end in `ValueError`). `read_toml` scans the text
first, in time linear in its length: strings and comments are skipped, and
the nesting depth of `[`/`{` and the length of bare words (numbers, bare
keys) are bounded by `racecert.model.limits`. What passes the scan is given
to `tomllib`; its syntax errors keep their own message and line.

Speed: `tomllib` reads a multi-line basic string (three double quotes) one
character at a time in Python, about a microsecond each, so a 4000 x 4000
grid would take 20 s; a multi-line literal string (three apostrophes) it
slices in one step. A basic string without backslashes, without three
apostrophes in a row and without control characters other than tab and
newline means exactly what the same text means as a literal string (same
characters, same first-newline rule, same extra closing quotes, same
errors), so the scan hands such strings to `tomllib` as literal strings:
same length, same lines, same document.
"""

from __future__ import annotations

import re
import sys
import tomllib
from typing import Any

from racecert.model.errors import TrackError
from racecert.model.limits import MAX_INT_DIGITS, MAX_NESTING

# What the scan stops at outside strings: string openers, comments, brackets, and the
# first character of a bare word longer than MAX_INT_DIGITS (the lookbehind makes the
# search start a word only at its beginning, so the scan stays linear).
_WORD = r"[\w.+\-:]"
_STOP = re.compile(r'"""|' + r"'''" + r"""|["'#\[\]{}]|(?<!""" + _WORD + ")" + _WORD
                   + "{" + str(MAX_INT_DIGITS + 1) + "}")
_BASIC_BODY = re.compile(r'[^"\\\n]*(?:\\.[^"\\\n]*)*')
_ML_BASIC_BODY = re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*', re.DOTALL)
_DIGIT_RUN = re.compile(r"(?<![0-9_])[0-9_]+")
# A multi-line basic string may be read as a literal one unless it holds one of these.
_NOT_PLAIN = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f]|'''")
_LITERAL_FROM = 1024  # shorter strings are cheap either way and are left as written


def read_toml(text: str, path: str) -> dict[str, Any]:
    """The TOML document in `text`, or a one-line `TrackError` naming `path` and the line."""
    text = text.replace("\r\n", "\n")  # what tomllib does first; the lines stay the same
    literal = _scan(text, path)
    if literal:
        text = _as_literal(text, literal)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        raise TrackError(path, "", f"TOML syntax error: {exc}", line) from None
    except RecursionError:  # a backstop: the scan bounds the depth well below this
        raise TrackError(path, "", f"arrays or inline tables nested too deeply "
                         f"(at most {MAX_NESTING} levels)") from None
    except ValueError:  # int() refused a literal: more digits than it converts
        limit = sys.get_int_max_str_digits()
        m = next((m for m in _DIGIT_RUN.finditer(text) if len(m.group()) > limit), None)
        line = _line(text, m.start()) if m else None
        raise TrackError(path, "", f"a number of more than {limit} digits", line) from None


def _scan(text: str, path: str) -> list[tuple[int, int]]:
    """Refuse nesting deeper than MAX_NESTING and bare words longer than MAX_INT_DIGITS.

    Returns the (start, end) of the long multi-line basic strings that read the same
    as literal strings (from the opening quotes to past the closing ones)."""
    depth = pos = 0
    literal: list[tuple[int, int]] = []
    while (m := _STOP.search(text, pos)) is not None:
        token, pos = m.group(), m.end()
        if token == '"':
            pos = _BASIC_BODY.match(text, pos).end() + 1
        elif token == "'":
            pos = min(_find(text, "'", pos), _find(text, "\n", pos)) + 1
        elif token == '"""':
            close = _ML_BASIC_BODY.match(text, pos).end()
            pos = _quotes_end(text, close)
            if (pos - close >= 3 and pos - m.start() > _LITERAL_FROM
                    and _NOT_PLAIN.search(text, m.end(), pos - 3) is None):
                literal.append((m.start(), pos))
        elif token == "'''":
            pos = _quotes_end(text, _find(text, "'''", pos))
        elif token == "#":
            pos = _find(text, "\n", pos)
        elif token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise TrackError(path, "", "arrays or inline tables nested more than "
                                 f"{MAX_NESTING} levels deep", _line(text, m.start()))
        elif token in "]}":
            depth = max(0, depth - 1)
        else:
            raise TrackError(path, "", f"a number or bare key of more than {MAX_INT_DIGITS} "
                             "characters", _line(text, m.start()))
    return literal


def _as_literal(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the strings at `spans` delimited by apostrophes instead of quotes (the
    opening three and the closing three; extra quotes before those are content)."""
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], "'''", text[start + 3: end - 3], "'''"]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _find(text: str, sub: str, pos: int) -> int:
    """Index of `sub` at or after `pos`, or the end of the text."""
    i = text.find(sub, pos)
    return len(text) if i < 0 else i


def _quotes_end(text: str, pos: int) -> int:
    """The end of a closing triple quote at `pos` (TOML allows up to two more quotes of
    content right before it)."""
    quote = text[pos: pos + 1]
    end = pos
    while end < len(text) and end - pos < 5 and text[end] == quote:
        end += 1
    return end


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1
