"""Mutation operators over track files: each takes the file's bytes and a seeded random
source and returns new bytes.

They aim at the classes of bad input a parser meets in the wild and at the
value ranges the engine represents: byte and bit flips, line deletions,
duplications and swaps, numbers replaced by boundary values (0, -1, 2^31,
2^63, 4301 digits, floats, other types), values wrapped in deep nesting,
control characters and line separators in keys, strings and grids, grid cells
and rows changed, tables duplicated or dropped, keys renamed or quoted, the
file truncated, lines spliced in from another track, long strings, and an
[opening] table or an elevated layer added. `mutant(bases, rng)` applies one
to three of them to a randomly chosen base.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

Mutation = Callable[[bytes, random.Random], bytes]

BOUNDARY_NUMBERS = (
    "0", "-1", "1", "2", "3", "-2", "7", "2147483647", "2147483648", "-2147483649",
    "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "1" + "0" * 30, "9" * 4301, "0x7fffffff", "0xffffffffffffffffffff", "0o777", "0b101",
    "1e308", "-0.0", "1.5", "inf", "nan", "true", '"3"', "[]", "[1, 2]", "{}", "1_000",
    "16777216", "33554432", "65536", "1125", "1126",
)
CONTROL_CHARS = ("\x00", "\x07", "\x08", "\x1b", "\r", "\n", "\x7f", "\x85", "\u2028",
                 "\u2029", "\ufeff", "\ufffe", "\t", "\x0c", "\x0b")
ESCAPES = ("\\n", "\\r", "\\u0000", "\\u001b", "\\t", "\\u2028", "\\U0010ffff", "\\x",
           "\\", "\\u00e9")
GRID_CHARS = "#.:/= x\t=="
NEST_DEPTHS = (2, 10, 31, 32, 33, 100, 1000, 5000)
_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?![\w.])")
_KEY = re.compile(rb"^(\s*)([A-Za-z_][\w-]*)(\s*=)", re.MULTILINE)
_HEADER = re.compile(rb"^\[[^\]\n]*\]\s*$", re.MULTILINE)
_STRING = re.compile(rb'"[^"\n]*"')
_GRID = re.compile(rb'"""\n(.*?)"""', re.DOTALL)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def flip_byte(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]


def flip_bit(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i:i] = [lines[i]] * rng.choice((1, 1, 2, 50))
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def replace_number(data: bytes, rng: random.Random) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    if rng.random() < 0.8 or len(m.group()) > 18:
        new = rng.choice(BOUNDARY_NUMBERS)
    else:  # a near miss: the number changed by a little
        new = str(int(m.group()) + rng.choice((-2, -1, 1, 2)))
    return data[: m.start()] + new.encode() + data[m.end():]


def nest_value(data: bytes, rng: random.Random) -> bytes:
    found = [m for m in re.finditer(rb"= *", data)]
    if not found:
        return data
    m = rng.choice(found)
    n = rng.choice(NEST_DEPTHS)
    end = data.find(b"\n", m.end())
    end = len(data) if end < 0 else end
    value = data[m.end(): end]
    if rng.random() < 0.5:
        wrapped = b"[" * n + value + b"]" * n
    else:
        wrapped = b"{a = " * n + value + b"}" * n
    return data[: m.end()] + wrapped + data[end:]


def control_char(data: bytes, rng: random.Random) -> bytes:
    where = rng.random()
    if where < 0.4:  # inside a string value
        found = list(_STRING.finditer(data))
        if found:
            m = rng.choice(found)
            i = rng.randrange(m.start() + 1, m.end())
            piece = rng.choice(ESCAPES + CONTROL_CHARS).encode()
            return data[:i] + piece + data[i:]
    if where < 0.7:  # a quoted key with an escape
        found = list(_KEY.finditer(data))
        if found:
            m = rng.choice(found)
            key = b'"' + m.group(2) + rng.choice(ESCAPES).encode() + b'x"'
            return data[: m.start(2)] + key + data[m.end(2):]
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice(CONTROL_CHARS).encode() + data[i:]


def grid_cell(data: bytes, rng: random.Random) -> bytes:
    found = list(_GRID.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    body = bytearray(m.group(1))
    cells = [i for i, c in enumerate(body) if c != ord("\n")]
    for _ in range(rng.choice((1, 1, 3, 20))):
        if cells:
            body[rng.choice(cells)] = ord(rng.choice(GRID_CHARS))
    return data[: m.start(1)] + bytes(body) + data[m.end(1):]


def grid_shape(data: bytes, rng: random.Random) -> bytes:
    found = list(_GRID.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    rows = m.group(1).split(b"\n")
    action = rng.randrange(4)
    i = rng.randrange(len(rows))
    if action == 0:  # a longer row
        rows[i] += rng.choice((b".", b"#", b"..#"))
    elif action == 1:  # a column more (or less) everywhere
        rows = [r + b"#" if r else r for r in rows] if rng.random() < 0.5 else \
            [r[:-1] for r in rows]
    elif action == 2:  # rows repeated: a much taller grid
        rows[i:i] = [rows[i]] * rng.choice((1, 10, 200))
    else:  # the grid emptied
        rows = [b""]
    return data[: m.start(1)] + b"\n".join(rows) + data[m.end(1):]


def table_header(data: bytes, rng: random.Random) -> bytes:
    found = list(_HEADER.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    choice = rng.randrange(4)
    if choice == 0:  # drop the header: its keys join the previous table
        return data[: m.start()] + data[m.end():]
    if choice == 1:  # the same table twice
        return data + b"\n" + m.group() + b"\nx = 1\n"
    if choice == 2:  # an array of tables
        return data[: m.start()] + b"[" + m.group() + b"]" + data[m.end():]
    return data[: m.start()] + m.group().replace(b"]", b".sub]") + data[m.end():]


def rename_key(data: bytes, rng: random.Random) -> bytes:
    found = list(_KEY.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    new = rng.choice((m.group(2) + b"s", m.group(2)[:-1], m.group(2).upper(), b"x" * 5000,
                      m.group(2) + b"." + m.group(2)))
    return data[: m.start(2)] + new + data[m.end(2):]


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def splice(data: bytes, rng: random.Random, others: tuple[bytes, ...] = ()) -> bytes:
    if not others:
        return data
    donor = _lines(rng.choice(others))
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = rng.choice(donor)
    return b"\n".join(lines)


def long_string(data: bytes, rng: random.Random) -> bytes:
    found = list(_STRING.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    piece = rng.choice((b"x", b"\xc3\xa9", b"\\n", b"#")) * rng.choice((100, 100_000))
    return data[: m.start() + 1] + piece + data[m.end() - 1:]


def add_opening(data: bytes, rng: random.Random) -> bytes:
    parts = [b"\n[opening]"]
    parts.append(b"moves = " + rng.choice(BOUNDARY_NUMBERS).encode())
    if rng.random() < 0.6:
        parts.append(b"max_speed = " + rng.choice(BOUNDARY_NUMBERS).encode())
    if rng.random() < 0.4:
        parts.append(b"straight = " + rng.choice((b"true", b"false", b"1")))
    text = b"\n".join(parts) + b"\n"
    i = data.find(b"[map]")
    return data + text if i < 0 else data[:i] + text[1:] + b"\n" + data[i:]


def add_elevated(data: bytes, rng: random.Random) -> bytes:
    """An elevated grid: empty, a copy of the ground, or one row; a line moved onto it."""
    m = _GRID.search(data)
    if m is None or b"elevated" in data:
        return data
    rows = m.group(1).split(b"\n")
    kind = rng.randrange(3)
    if kind == 0:
        elev = b"\n"
    elif kind == 1:
        elev = b"\n".join(r.replace(b".", b"=").replace(b":", b" ") for r in rows)
    else:  # a blank row, then the second ground row as a bridge
        elev = b" " * len(rows[0]) + b"\n" + rows[min(1, len(rows) - 1)].replace(b".", b"=")
    data = data.rstrip(b"\n") + b'\nelevated = """\n' + elev + b'"""\n'
    table = rng.choice((b"[finish]", b"[start]", b"[car]"))
    i = data.find(table)
    if i >= 0 and rng.random() < 0.7:
        j = i + len(table)
        data = data[:j] + b"\nlayer = 1" + data[j:]
    return data


OPERATORS: list[Mutation] = [
    flip_byte, flip_bit, delete_line, duplicate_line, swap_lines, replace_number,
    replace_number, replace_number, nest_value, control_char, control_char, grid_cell,
    grid_cell, grid_shape, table_header, rename_key, truncate, splice, long_string,
    add_opening, add_opening, add_elevated,
]
"""The operators a mutant draws from (repeated ones are drawn more often)."""


@dataclass(frozen=True)
class Mutant:
    """One mutated track: its base file, the operators applied in order, and its bytes."""

    index: int
    base: str
    operators: tuple[str, ...]
    data: bytes


def mutant(index: int, bases: dict[str, bytes], seed: int) -> Mutant:
    """The `index`-th mutant of a seeded run (the same seed and index give the same bytes)."""
    rng = random.Random(f"{seed}:{index}")
    name = rng.choice(sorted(bases))
    data = bases[name]
    others = tuple(v for k, v in sorted(bases.items()) if k != name)
    ops = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        op = rng.choice(OPERATORS)
        data = splice(data, rng, others) if op is splice else op(data, rng)
        ops.append(op.__name__)
    return Mutant(index, name, tuple(ops), data)
