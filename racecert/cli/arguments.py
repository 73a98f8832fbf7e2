"""Argument parsing with one-line errors, and value types that say their allowed range.

argparse prints a usage block before its error; the project's convention is one
line and exit status 2 for any bad input, so `Parser.error` prints only
``racecert SUB: error: ...``. The value types (`seconds`, `integer`, `room_size`)
reject what the engine cannot honour (negative, NaN, infinite, absurdly large)
with a message that gives the allowed range, before any work starts.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import NoReturn

EXIT_BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block), exit status 2.

    `hint`, when set (e.g. "did you mean 'analyze'?" for a mistyped subcommand), is
    added to that line."""

    hint = ""

    def error(self, message: str) -> NoReturn:
        line = " ".join(message.split())
        hint = f"; {self.hint}" if self.hint else ""
        self.exit(EXIT_BAD_INPUT,
                  f"{self.prog}: error: {line}{hint} (see {self.prog} --help)\n")


def seconds(low_exclusive: float, high: float, unit: str = "seconds"
            ) -> Callable[[str], float]:
    """An argparse type: a finite amount of `unit` in (low_exclusive, high]."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None
        if not math.isfinite(value) or not low_exclusive < value <= high:
            raise argparse.ArgumentTypeError(
                f"{text} is out of range: {unit} greater than {low_exclusive:g} "
                f"and at most {high:g}")
        return value
    return parse


def integer(low: int, high: int, what: str = "an integer") -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text} is out of range: {what} from {low:,} to {high:,}")
        return value
    return parse


def room_size(min_w: int, min_h: int, max_w: int, max_h: int,
              note: str = "the search is for small rooms") -> Callable[[str], tuple[int, int]]:
    """An argparse type: ``WxH`` with min_w <= W <= max_w and min_h <= H <= max_h."""
    def parse(text: str) -> tuple[int, int]:
        parts = text.lower().split("x")
        try:
            w, h = (int(p) for p in parts)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not WxH (e.g. 7x5)") from None
        if not (min_w <= w <= max_w and min_h <= h <= max_h):
            raise argparse.ArgumentTypeError(
                f"{text} is out of range: W from {min_w} to {max_w}, H from {min_h} to "
                f"{max_h}" + (f"; {note}" if note else ""))
        return w, h
    return parse


def print_error(message: object) -> int:
    """Print ``error: MESSAGE`` as one line on stderr; return exit status 2 (bad input)."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return EXIT_BAD_INPUT
