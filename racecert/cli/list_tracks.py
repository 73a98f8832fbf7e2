"""`racecert tracks [--json]`: list the tracks bundled with racecert.

One line per bundled track: the name every track argument accepts (`racecert analyze
ocho`), its grid size, layers, rule profile (grid or lattice), declared kind (stage or
circuit; lattice tracks declare none), whether it has an opening rule, and its title.
Each file is read and validated as `validate` does (a few milliseconds for all of
them), so the figures are the parser's, not a second reading of the TOML. `--json`
prints the same as a list of objects. Exit status 0; 2 when this racecert has no
bundled tracks (installed without its package data) or one does not validate.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass

from racecert.cli.arguments import print_error
from racecert.model.bundled import BundledTrack, bundled_tracks
from racecert.model.errors import TrackError
from racecert.model.parse import load_track
from racecert.model.profiles import profile_of

NONE = "-"


@dataclass(frozen=True)
class TrackEntry:
    """What `racecert tracks` shows of one bundled track."""

    name: str
    file: str
    title: str
    width: int
    height: int
    layers: int
    rules: str
    kind: str | None
    opening: bool


def entry(bundled: BundledTrack) -> TrackEntry:
    """Read and validate one bundled track (a one-line `TrackError` if it is bad)."""
    t = load_track(bundled.path)
    return TrackEntry(name=bundled.name, file=bundled.relative, title=t.name,
                      width=t.width, height=t.height, layers=t.layers,
                      rules=profile_of(t).name, kind=t.kind, opening=t.opening is not None)


def table(entries: list[TrackEntry]) -> str:
    """Aligned columns with a header line."""
    rows = [("name", "size", "layers", "rules", "kind", "opening", "title")]
    rows += [(e.name, f"{e.width}x{e.height}", str(e.layers), e.rules, e.kind or NONE,
              "yes" if e.opening else "no", e.title) for e in entries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)),
                                r[-1]]) for r in rows)  # the title last, not padded


def register(p: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    p.add_argument("--json", action="store_true",
                   help="print the list as JSON (name, file, title, width, height, layers, "
                        "rules, kind, opening) instead of a table")
    p.set_defaults(func=cmd_tracks)


def cmd_tracks(args: argparse.Namespace) -> int:
    bundled = bundled_tracks()
    if not bundled:
        return print_error("no bundled tracks: this racecert was installed without its "
                           "package data (racecert/tracks/)")
    try:
        entries = [entry(b) for b in bundled]
    except TrackError as exc:
        return print_error(exc)
    if args.json:
        print(json.dumps([asdict(e) for e in entries], indent=2))
    else:
        print(table(entries))
    return 0
