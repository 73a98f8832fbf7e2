"""`racecert import bekos|ascii|cell-path FILE -o TRACK.toml`: other formats as racecert
track files.

ASCII maps (`#` `.` `S` `F`, as other Racetrack programs read them) become grid track
files by the rule of `racecert.model.ascii_grid` (docs/track-format.md, "ASCII maps").

The XML tracks of Bekos et al.'s RaceTrack game become lattice track files
(`racecert.model.bekos_import`). The cell-path maps of reinforcement learning and model
checking (`dim: H W` maps, or plain grids with their width and height first) become
cell-path track files (`racecert.model.cellpath.parse`; `racecert analyze` also reads
such a `.track` map directly). The written file is parsed back and validated before
it is written (atomically); a bad XML file, a refused DTD or entity, or a track that
fails validation is one line on stderr and exit status 2. Without -o the TOML text
goes to stdout; with -o one line on stderr says what was written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from racecert.cli.output import check_output_file, emit_text
from racecert.model.ascii_grid import ascii_to_toml, read_ascii
from racecert.model.bekos_import import read_bekos, to_toml
from racecert.model.cellpath.parse import parse_map_bytes
from racecert.model.cellpath.parse import to_toml as cellpath_toml
from racecert.model.cellpath.track import CellPathTrack
from racecert.model.errors import TrackError
from racecert.model.parse import parse_track

FORMATS = ("bekos", "ascii", "cell-path")


def register(i: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    i.add_argument("format", choices=FORMATS, help="the input format")
    i.add_argument("file", metavar="FILE", help="the input file")
    i.add_argument("-o", "--out", metavar="TRACK.toml",
                   help="write the track file here (atomically); default: stdout")
    i.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    out = check_output_file(args.out) if args.out else None
    if args.format == "ascii":
        text = ascii_to_toml(read_ascii(args.file), Path(args.file).stem, args.file)
    elif args.format == "cell-path":
        text = cellpath_toml(_read_map(args.file))
    else:
        text = to_toml(read_bekos(args.file))
    try:
        parse_track(text.encode("utf-8"), str(out or "<stdout>"))
    except TrackError as exc:
        raise TrackError(args.file, "", f"the imported track is not valid: {exc.where} "
                         f"{exc.message}".replace("  ", " ")) from None
    emit_text(text, out, f"from the {args.format} file {args.file}")
    return 0


def _read_map(path: str) -> CellPathTrack:
    """The cell-path map at `path` (one-line `TrackError` when unreadable)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TrackError(path, "", f"cannot read: {exc.strerror}") from None
    return parse_map_bytes(data, path)
