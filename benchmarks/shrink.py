"""Shrink a one-layer track while a property holds (used for the tracks of issue #14).

Greedy and 1-minimal, like `racecert.analysis.explore.shrink` but for any property and
any car direction: delete a row or a column (renumbering the car and the lines), turn
a cell into a wall, or a shoulder into asphalt, whenever the result is still a valid
track (the validator decides) on which `keep` holds; repeat to a fixpoint.

    python -m benchmarks.shrink TRACK {editor-finds-none|no-optimal-continuation|stage-by-opening}
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace

from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Line, Track


def track_text(t: Track) -> str:
    """The track file text of a one-layer track (name, kind, car, lines, opening, map)."""
    if t.elevated is not None:
        raise ValueError("track_text handles one-layer tracks only")

    def line(table: str, ln: Line) -> str:
        span = "y" if ln.axis == "x" else "x"
        return (f"[{table}]\n{ln.axis} = {ln.k}\n{span} = [{ln.lo}, {ln.hi}]\n"
                f'dir = "{ln.direction}"\n\n')

    out = f'name = "{t.name}"\n'
    if t.kind is not None:
        out += f'kind = "{t.kind}"\n'
    out += (f"\n[car]\nposition = [{t.car.position[0]}, {t.car.position[1]}]\n"
            f'direction = "{t.car.direction}"\n\n' + line("start", t.start)
            + line("finish", t.finish))
    if t.opening is not None:
        op = t.opening
        out += f"[opening]\nmoves = {op.moves}\n"
        if op.max_speed is not None:
            out += f"max_speed = {op.max_speed}\n"
        out += f"straight = {'true' if op.straight else 'false'}\n\n"
    grid = "\n".join(t.ground)
    return out + f'[map]\nground = """\n{grid}\n"""\n'


def _parse(text: str) -> Track | None:
    try:
        return parse_track(text.encode(), "<shrink>")
    except TrackError:
        return None


def _drop(ln: Line, axis: str, i: int) -> Line | None:
    """`ln` after deleting column (axis "x") or row (axis "y") i; None if it loses its place."""
    if ln.axis == axis:
        if i in (ln.k, ln.k + 1):
            return None
        return replace(ln, k=ln.k - (ln.k > i))
    lo, hi = ln.lo - (ln.lo > i), ln.hi - (ln.hi >= i)
    return None if lo > hi else replace(ln, lo=lo, hi=hi)


def _delete(t: Track, axis: str, i: int) -> Track | None:
    """`t` without column (axis "x") or row (axis "y") i, or None when that is not possible."""
    x, y = t.car.position
    if (x if axis == "x" else y) == i or min(t.width, t.height) <= 2:
        return None
    start, finish = _drop(t.start, axis, i), _drop(t.finish, axis, i)
    if start is None or finish is None:
        return None
    if axis == "x":
        rows = tuple(r[:i] + r[i + 1:] for r in t.ground)
        car = (x - (x > i), y)
    else:
        rows = t.ground[:i] + t.ground[i + 1:]
        car = (x, y - (y > i))
    return replace(t, ground=rows, start=start, finish=finish,
                   car=replace(t.car, position=car, slots=()))


def _set(t: Track, x: int, y: int, ch: str) -> Track:
    row = t.ground[y]
    return replace(t, ground=t.ground[:y] + (row[:x] + ch + row[x + 1:],) + t.ground[y + 1:])


def smaller(t: Track) -> Iterator[Track]:
    """Every one-step simplification of `t` (not yet validated)."""
    for axis, n in (("y", t.height), ("x", t.width)):
        for i in range(n):
            d = _delete(t, axis, i)
            if d is not None:
                yield d
    for y, row in enumerate(t.ground):
        for x, ch in enumerate(row):
            if (x, y) != t.car.position and ch in ".:":
                yield _set(t, x, y, "#")
            if ch == ":":
                yield _set(t, x, y, ".")


def shrink(t: Track, keep: Callable[[Track], bool]) -> Track:
    """A 1-minimal valid track on which `keep` holds, reached from `t` (where it must hold)."""
    if not keep(t):
        raise ValueError("the property does not hold on the track to shrink")
    best = t
    changed = True
    while changed:
        changed = False
        for s in smaller(best):
            cand = _parse(track_text(s))
            if cand is not None and keep(cand):
                best, changed = cand, True
                break
    return best


def main(argv: list[str] | None = None) -> int:
    from benchmarks.opening_properties import PROPERTIES

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("track")
    p.add_argument("property", choices=sorted(PROPERTIES))
    args = p.parse_args(argv)
    print(track_text(shrink(load_track(args.track), PROPERTIES[args.property])), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
