"""Serving the studio with uvicorn on a socket bound before anything starts.

`listen` binds the socket first, so that a port in use or a bad address is one
line (`ServerError`) before any work; `serve` runs uvicorn on it until Ctrl-C.
`background` runs the same server in a thread (the browser tests use it).
`page_url` is the address to open: the server's URL with the session's token.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette


class ServerError(Exception):
    """The server cannot start (a port in use, an address not on this machine)."""


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise ServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def page_url(sock: socket.socket, app: Starlette) -> str:
    """The URL that opens the page of `app` with its token (`racecert.studio.app`)."""
    token = getattr(app.state, "token", None)
    return url_of(sock) + (f"?token={token}" if token else "")


def _server(app: Starlette) -> uvicorn.Server:
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2)
    return uvicorn.Server(config)


def serve(app: Starlette, sock: socket.socket) -> None:
    """Run until Ctrl-C (uvicorn shuts down gracefully, then re-raises the interrupt)."""
    _server(app).run(sockets=[sock])


@contextmanager
def background(app: Starlette, host: str = "127.0.0.1") -> Iterator[str]:
    """The app served in a thread on a free port; yields its page's URL (with the token),
    stops on exit."""
    sock = listen(host, 0)
    server = _server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):  # bounded: the server starts in well under a second
        if server.started:
            break
        time.sleep(0.01)
    try:
        yield page_url(sock, app)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
