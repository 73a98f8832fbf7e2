"""Errors raised for bad track input.

A `TrackError` always names the file, the place (a TOML key, or a grid row and
column with the file line it sits on) and what is wrong, so that the command
line can print one readable line and exit with status 2 instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

from racecert.model.budget import LimitReached


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
        return one_line(f"{place}:{where} {self.message}")


class LatticeLimitError(LimitReached):
    """A lattice search met a state its rule profile cannot encode, or held more states
    than the lattice pipeline's own cap (one line; exit status 4). A `LimitReached`, so
    every caller that ends a run on a resource limit (the command line, the studio's jobs,
    the batch's tasks) ends it here too. Raised by `racecert.model.lattice.rules` and the
    lattice pipeline; it lives here, free of numpy, so that the command line can catch it
    without importing the lattice rules."""


def one_line(text: str) -> str:
    r"""`text` with every unprintable character (newlines, controls, line separators)
    written as its Python escape, so that an error is always one line.

    >>> print(one_line("t.toml: [car].a" + chr(10) + "b: unknown key"))
    t.toml: [car].a\nb: unknown key
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
