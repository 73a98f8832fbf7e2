"""`racecert studio [TRACK] [--port P]`: the local web page to draw, analyse and certify tracks.

Everything is checked before the server starts (one line, exit status 2): the
TRACK file must open (a file the validator rejects still opens as a draft, with
the message shown on its cell; a file that is not a track table does not; a
.toml file that does not exist yet, in a folder that does, starts a blank grid
that Save writes there), each
--folder must be a folder, and the address must be free. The server then runs
on 127.0.0.1 until Ctrl-C (exit status 130) and prints the page's URL with the
session's random token, without which the API refuses every request (403); a
--host that is not loopback is served too, with a warning line that anyone who
can reach the port and learns the URL can use the page. docs/studio.md describes
the page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from racecert.cli.arguments import EXIT_BAD_INPUT, integer, print_error
from racecert.model.bundled import track_path
from racecert.model.errors import TrackError
from racecert.studio.app import LOCAL_HOSTS, StudioConfig, create_app
from racecert.studio.document import draft_from_toml
from racecert.studio.files import (
    FileAccessError,
    Roots,
    bundled_tracks,
    is_new_track,
    read_track_bytes,
)
from racecert.studio.server import ServerError, listen, page_url, serve
from racecert.studio.worker import JobLimits

DEFAULT_PORT = 8765
MAX_STATES = 1_000_000_000


def register(s: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    s.add_argument("track", nargs="?", help="a track file (or a bundled track's name) to open; its "
                   "folder is writable unless it is the bundled tracks'")
    s.add_argument("--port", type=integer(0, 65535, "a port"), default=DEFAULT_PORT,
                   help=f"TCP port, 0 to 65535 (default {DEFAULT_PORT}; 0 picks a free one)")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    s.add_argument("--folder", metavar="DIR", action="append", default=[],
                   help="a folder the page may open and save tracks in (repeatable; "
                        "default: the current folder); the bundled tracks are read only")
    s.add_argument("--max-states", metavar="N", type=integer(1_000, MAX_STATES, "a count"),
                   default=JobLimits.max_states,
                   help="BFS states one analysis may explore (default "
                        f"{JobLimits.max_states:,})")
    s.set_defaults(func=cmd_studio)


def _folders(args: argparse.Namespace) -> list[Path]:
    folders = [Path(f) for f in args.folder] or [Path.cwd()]
    for f in folders:
        if not f.is_dir():
            raise FileAccessError(f"--folder {f}: not a folder")
    if args.track is not None:
        folders.append(Path(track_path(args.track)).resolve().parent)
    return folders


def cmd_studio(args: argparse.Namespace) -> int:
    try:
        folders = _folders(args)
        initial = None
        if args.track is not None:
            initial = Path(track_path(args.track))
            if not is_new_track(initial):
                draft_from_toml(read_track_bytes(initial), args.track)
    except (FileAccessError, TrackError) as exc:
        return print_error(exc)
    hosts = tuple(dict.fromkeys((*LOCAL_HOSTS, args.host.strip("[]"), args.host)))
    config = StudioConfig(Roots.of(folders, bundled_tracks()), initial=initial,
                          limits=JobLimits(max_states=args.max_states), hosts=hosts)
    try:
        sock = listen(args.host, args.port)
    except ServerError as exc:
        print_error(exc)
        return EXIT_BAD_INPUT
    app = create_app(config)
    if not _loopback(args.host):
        print(f"racecert studio: warning: listening on {args.host}, not only this machine: "
              "anyone who can reach the port and has the URL below (its token) can open, save "
              "and run tracks; keep the URL private", file=sys.stderr)
    print(f"racecert studio: {page_url(sock, app)}  (Ctrl-C to stop)", file=sys.stderr,
          flush=True)
    serve(app, sock)
    return 0


def _loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
