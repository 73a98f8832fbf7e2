"""The largest inputs racecert represents, in one place.

The validator refuses anything beyond these limits with one line, before any
analysis starts, so that no later stage meets a value it cannot hold (an
opening of 2^31 moves in an int32 phase, a state key past int64, a nesting
deeper than the TOML reader's recursion). `docs/track-format.md` lists them.

>>> state_key_bound(10, 3, opening_moves=0)
11400
>>> fits_state_key(4000, 4000, opening_moves=1125), fits_state_key(4000, 4000, 1126)
(True, False)
"""

from __future__ import annotations

MAX_FILE_BYTES = 64 * 2**20
"""A track file (or `parse_track` text) larger than 64 MiB is refused before it is read:
a 4000 x 4000 grid with an elevated layer of the same size takes 32 MB."""

MAX_NESTING = 32
"""Arrays and inline tables nested deeper than this are refused before TOML parsing
(the reader recurses once per level; a track needs depth 2)."""

MAX_INT_DIGITS = 4300
"""The longest decimal integer literal Python converts (`sys.int_info.default_max_str_digits`);
a longer one is refused with its line."""

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""Every integer value of a track lies in the int64 range."""

MAX_SIDE = 2**24
"""Grid width and height: at most 16,777,216 cells (coordinates and velocities are int32)."""

MAX_CELLS = 2**25
"""Grid cells (width x height): at most 33,554,432, so that per-cell arrays (the flood,
the surfaces) stay within a few hundred MB."""

MAX_OPENING_MOVES = 2**31 - 2
"""`[opening].moves`: the opening phase min(moves made, K) and K + 1 phases are int32."""

MAX_SPEED = 2**31 - 1
"""`[opening].max_speed`: compared with int32 velocity components."""

STATE_KEY_LIMIT = 2**62
"""Packed state keys (`racecert.model.states.StateCodec`) are int64 and the lap search
doubles them, so the key bound must not exceed 2^62."""


def state_key_bound(width: int, height: int, opening_moves: int) -> int:
    """The exclusive bound of the packed (x, y, vx, vy, layer, progress, phase) keys:
    the `StateCodec.key_bound` of the track's searches (K + 1 phases, phase kept)."""
    return width * height * (2 * width - 1) * (2 * height - 1) * 2 * 2 * (opening_moves + 1)


def fits_state_key(width: int, height: int, opening_moves: int) -> bool:
    """The track's state keys fit the int64 key space with a bit to spare."""
    return state_key_bound(width, height, opening_moves) <= STATE_KEY_LIMIT


def max_opening_moves(width: int, height: int) -> int:
    """The largest K whose state keys fit a W x H grid (at most `MAX_OPENING_MOVES`)."""
    return min(MAX_OPENING_MOVES, STATE_KEY_LIMIT // state_key_bound(width, height, 0) - 1)
