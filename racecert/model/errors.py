"""Errors raised for bad track input.

A `TrackError` always names the file, the place (a TOML key, or a grid row and
column with the file line it sits on) and what is wrong, so that the command
line can print one readable line and exit with status 2 instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TrackError(Exception):
    """A track file that cannot be used, with where and why.

    >>> str(TrackError("t.toml", "[car].direction", "must be one of +x, -x, +y, -y"))
    't.toml: [car].direction: must be one of +x, -x, +y, -y'
    """

    path: str
    where: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        place = f"{self.path}:{self.line}" if self.line is not None else self.path
        where = f" {self.where}:" if self.where else ""
        return f"{place}:{where} {self.message}"
