"""The studio's web application (Starlette): the page, its assets, and a JSON API.

Every route answers JSON; every problem is a 4xx with `{"error": one line}`
(a 500 says "internal error" in one line too, never a traceback page).

Safe by default: every API request must carry the session's random token
(`StudioConfig.token`, `secrets.token_urlsafe`; `TokenGuard`), as Jupyter's
server does, so that another process or user on the machine (or on the
network, with `--host`) cannot save over a track file or start jobs; the
printed URL carries it once (`/?token=...`), the page keeps it and sends it as
the `X-Racecert-Token` header (and in the URL of its event streams), and the
first page load also sets it as a cookie for reloads. The server binds 127.0.0.1
(`racecert.studio.server`); the Host header must name this machine (no DNS
rebinding); a request that changes
anything must be JSON (a cross-site form cannot send it without a preflight
the server never grants) and, when the browser names its origin, come from the
studio's own; bodies are limited to `max_body` bytes; files are read and
written only inside the folders the studio was given (`files.Roots`); and the
page runs nothing but the engine's calls (validate, analyze, certify, a race of
built-in drivers), each
job bounded (`worker.JobLimits`). The page's assets are served from the
package, and a Content-Security-Policy keeps it from loading anything else.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from racecert.model.errors import TrackError
from racecert.studio.diagnostics import validate_draft
from racecert.studio.document import DocumentError, draft_from_json, draft_from_toml, is_grid
from racecert.studio.document import track_to_json as document_of
from racecert.studio.files import FileAccessError, Roots, read_track_bytes, write_atomic
from racecert.studio.jobs import JobManager, JobsBusy
from racecert.studio.race_job import (
    MAX_CARS,
    MAX_LAPS,
    RaceOptionError,
    builtin_drivers,
    car_palette,
    race_options,
)
from racecert.studio.track_view import track_view
from racecert.studio.worker import JobLimits

STATIC = Path(__file__).resolve().parent / "static"
CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
       "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
HEARTBEAT = 15.0
"""Seconds between comment lines on an idle event stream (keeps proxies from closing it)."""
TOKEN_HEADER = "x-racecert-token"
TOKEN_PARAM = "token"
MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a request body may have (a document needs 4)."""


def new_token() -> str:
    """A fresh session token: 32 random bytes, URL-safe (as Jupyter's)."""
    return secrets.token_urlsafe(32)


def token_cookie(port: int | None) -> str:
    """The cookie's name, one per port: cookies are not kept apart by port, and two
    studios on one machine must not overwrite each other's."""
    return f"racecert_studio_token_{port or 0}"


@dataclass(frozen=True)
class StudioConfig:
    """What one studio server serves and allows."""

    roots: Roots
    initial: Path | None = None
    limits: JobLimits = field(default_factory=JobLimits)
    max_running: int = 2
    max_body: int = 4 * 2**20
    hosts: tuple[str, ...] = LOCAL_HOSTS
    token: str = field(default_factory=new_token, repr=False)


class ApiError(Exception):
    """A request the API refuses: HTTP status and a one-line message."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, " ".join(message.split()), extra


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


async def _body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, refusing non-JSON, cross-origin and oversized bodies."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host')}":
        raise ApiError(403, f"requests from {origin} are refused (only the studio's own page)")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(415, "send the request as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"request body larger than {limit:,} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise ApiError(413, f"request body larger than {limit:,} bytes")
    too_deep = json_too_deep(bytes(data), MAX_JSON_DEPTH)
    if too_deep:
        raise ApiError(400, f"the body is not accepted: {too_deep}")
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ApiError(400, "the body must be a JSON object")
    return value


def json_too_deep(data: bytes, limit: int) -> str | None:
    """Why `data` nests arrays and objects deeper than `limit` (one line), or None.

    Checked on the bytes before `json.loads`, whose recursion would otherwise end in a
    RecursionError (a 500) on a body such as 50,000 `[`: the strings are cut out first
    (brackets inside them do not count), then the brackets are counted in one pass.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    brackets = re.sub(rb'"[^"\\]*(?:\\.[^"\\]*)*"', b"", data).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        if depth > limit:
            return f"JSON nested deeper than {limit} levels"
    return None


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _draft(body: dict[str, Any]):
    try:
        return draft_from_json(body.get("document"))
    except DocumentError as exc:
        raise ApiError(400, str(exc)) from None


def _viewed(body: dict[str, Any], kind: str, mode: str) -> tuple[str, dict[str, Any]]:
    """The file text and job options of a job on a read-only track: `body["view"]` is
    {text, file} as the page opened it; the text must parse as a lattice or cell-path
    track (the file's name tells a cell-path map, ``.track``, from TOML)."""
    view = body["view"]
    if not isinstance(view, dict) or not isinstance(view.get("text"), str) \
            or not isinstance(view.get("file"), str):
        raise ApiError(400, "view: give the file's text and name as strings")
    label = Path(view["file"]).name or "track"
    if kind == "race":
        raise ApiError(400, "a race runs on grid tracks only (the built-in drivers and the "
                            "grid slots are the grid's)")
    if mode != "exact":
        raise ApiError(400, f"mode {mode!r}: a lattice or cell-path track has the exact key "
                            "only")
    try:
        track = draft_from_toml(view["text"].encode("utf-8"), label)
    except TrackError as exc:
        raise ApiError(400, str(exc)) from None
    if is_grid(track):
        raise ApiError(400, f"{label}: a grid track is sent as a document, not as a view")
    return view["text"], {"mode": "exact", "file": label}


def create_app(config: StudioConfig) -> Starlette:
    """The studio application for `config`."""
    jobs = JobManager(config.limits, max_running=config.max_running)

    def opened(data: bytes, label: str, source: dict[str, Any] | None) -> dict[str, Any]:
        """What the page opens: a grid track's document and verdict, or the read-only
        view of a lattice or cell-path track (`track_view`; `document` null)."""
        try:
            track = draft_from_toml(data, label)
        except TrackError as exc:
            raise ApiError(400, str(exc)) from None
        if not is_grid(track):
            view = track_view(track, data.decode("utf-8", errors="replace"), label)
            return {"document": None, "view": view, "source": source, "verdict": None}
        verdict = validate_draft(track, label)  # type: ignore[arg-type]
        return {"document": document_of(track), "source": source, "verdict": verdict.to_json()}

    async def index(request: Request) -> Response:
        response = FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})
        given = request.query_params.get(TOKEN_PARAM)
        if given is not None and same_token(given, config.token):
            response.set_cookie(token_cookie(request.url.port), config.token, httponly=True,
                                samesite="strict", path="/")
        return response

    async def session(request: Request) -> Response:
        initial = None
        if config.initial is not None:
            path = config.initial
            source = config.roots.locate(path)
            if not path.exists() and source is not None:  # a new track, saved there
                initial = {"document": None, "source": source, "new": True, "name": path.stem}
            else:
                data = await run_in_threadpool(read_track_bytes, path)
                initial = await run_in_threadpool(opened, data, path.name, source)
        limits = config.limits
        return JSONResponse({
            "folders": config.roots.listing(), "home": config.roots.home(), "initial": initial,
            "race": {"drivers": builtin_drivers(), "max_cars": MAX_CARS, "max_laps": MAX_LAPS,
                     "colors": car_palette()},
            "limits": {"max_states": limits.max_states, "memory_gib": limits.memory_bytes / 2**30,
                       "cpsat_budget": limits.cpsat_budget, "count_limit": limits.count_limit,
                       "max_running": config.max_running, "max_body": config.max_body}})

    async def files(request: Request) -> Response:
        return JSONResponse({"folders": await run_in_threadpool(config.roots.listing)})

    async def open_file(request: Request) -> Response:
        body = await _body(request, config.max_body)
        path = config.roots.resolve(body.get("folder"), body.get("path"))
        data = await run_in_threadpool(read_track_bytes, path)
        source = {"folder": body["folder"], "path": body["path"]}
        return JSONResponse(await run_in_threadpool(opened, data, path.name, source))

    async def import_text(request: Request) -> Response:
        body = await _body(request, config.max_body)
        text, name = body.get("text"), body.get("name", "file")
        if not isinstance(text, str) or not isinstance(name, str):
            raise ApiError(400, "give the file's text and name as strings")
        return JSONResponse(await run_in_threadpool(opened, text.encode("utf-8"),
                                                    Path(name).name or "file", None))

    async def validate(request: Request) -> Response:
        draft = _draft(await _body(request, config.max_body))
        verdict = await run_in_threadpool(validate_draft, draft)
        return JSONResponse(verdict.to_json())

    async def save(request: Request) -> Response:
        body = await _body(request, config.max_body)
        draft = _draft(body)
        path = config.roots.resolve(body.get("folder"), body.get("path"), write=True)
        if path.exists() and body.get("overwrite") is not True:
            raise ApiError(409, f"{body.get('path')} exists: confirm to replace it",
                           exists=True)
        verdict = await run_in_threadpool(validate_draft, draft, path.name)
        await run_in_threadpool(write_atomic, path, verdict.toml.encode("utf-8"))
        return JSONResponse({"saved": str(path), "folder": body["folder"],
                             "path": body["path"], "verdict": verdict.to_json()})

    async def start_job(request: Request) -> Response:
        body = await _body(request, config.max_body)
        kind, mode = body.get("kind"), body.get("mode", "exact")
        if kind not in ("analyze", "certify", "race"):
            raise ApiError(400, f"kind must be 'analyze', 'certify' or 'race', got {kind!r}")
        if mode not in ("exact", "editor"):
            raise ApiError(400, f"mode must be 'exact' or 'editor', got {mode!r}")
        options: dict[str, Any] = {"mode": mode}
        if body.get("view") is not None:  # a lattice or cell-path track, viewed read only
            text, options = await run_in_threadpool(_viewed, body, kind, mode)
        else:
            if kind == "race":
                try:
                    options = race_options(body)
                except RaceOptionError as exc:
                    raise ApiError(400, str(exc)) from None
            verdict = await run_in_threadpool(validate_draft, _draft(body))
            if not verdict.valid:
                raise ApiError(400, f"the track does not validate: {verdict.messages[0].text}")
            text = verdict.toml
        try:
            job = await run_in_threadpool(jobs.start, kind, text, options)
        except JobsBusy as exc:
            raise ApiError(429, str(exc)) from None
        return JSONResponse({"id": job.id, "kind": kind}, status_code=202)

    def job_of(request: Request):
        job = jobs.get(request.path_params["job"])
        if job is None:
            raise ApiError(404, "no such job (it finished long ago, or the server restarted)")
        return job

    async def job_state(request: Request) -> Response:
        since = request.query_params.get("since", "0")
        return JSONResponse(job_of(request).to_json(int(since) if since.isdigit() else 0))

    async def cancel_job(request: Request) -> Response:
        if request.method == "POST":
            await _body(request, config.max_body)
        job = job_of(request)
        await run_in_threadpool(jobs.cancel, job)
        return JSONResponse({"id": job.id, "state": job.state})

    async def job_events(request: Request) -> Response:
        job = job_of(request)
        last = request.headers.get("last-event-id", "")
        start = int(last) + 1 if last.isdigit() else 0
        return StreamingResponse(_stream(job, start), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(jobs.shutdown)

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _error(exc.status, exc.message, **exc.extra)

    async def file_error(request: Request, exc: Exception) -> Response:
        return _error(403 if "outside" in str(exc) or "read only" in str(exc) else 400,
                      " ".join(str(exc).split()))

    async def internal_error(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error: {type(exc).__name__}: "
                           f"{' '.join(str(exc).split())}")

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/session", session),
            Route("/api/files", files),
            Route("/api/open", open_file, methods=["POST"]),
            Route("/api/import", import_text, methods=["POST"]),
            Route("/api/validate", validate, methods=["POST"]),
            Route("/api/save", save, methods=["POST"]),
            Route("/api/jobs", start_job, methods=["POST"]),
            Route("/api/jobs/{job}", job_state),
            Route("/api/jobs/{job}", cancel_job, methods=["DELETE"]),
            Route("/api/jobs/{job}/cancel", cancel_job, methods=["POST"]),
            Route("/api/jobs/{job}/events", job_events),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders),
                    Middleware(TrustedHostMiddleware, allowed_hosts=list(config.hosts)),
                    Middleware(TokenGuard, token=config.token)],
        exception_handlers={ApiError: api_error, FileAccessError: file_error,
                            Exception: internal_error},
        lifespan=lifespan,
    )
    app.state.jobs = jobs
    app.state.token = config.token
    return app


def same_token(given: str, token: str) -> bool:
    """`given` is the session's token, compared in constant time (`hmac.compare_digest`:
    the time taken does not tell how much of a guess was right)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode())


class TokenGuard:
    """ASGI middleware: every request under /api/ must carry the session's token, in the
    `X-Racecert-Token` header, the `token` query parameter (event streams: EventSource
    cannot send headers) or the cookie the page load set; else 403 with one line. The
    page and its assets are not guarded: they are the package's files and hold nothing."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        if self._given(scope):
            await self.app(scope, receive, send)
            return
        response = _error(403, "the studio's token is missing or wrong: open the URL that "
                               "`racecert studio` printed (it ends in ?token=...)")
        await response(scope, receive, send)

    def _given(self, scope: Any) -> bool:
        request = Request(scope)
        candidates = [request.headers.get(TOKEN_HEADER),
                      request.cookies.get(token_cookie(request.url.port))]
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        candidates += query.get(TOKEN_PARAM, [])[:1]
        return any(c is not None and same_token(c, self.token) for c in candidates)


class SecurityHeaders:
    """ASGI middleware: the Content-Security-Policy and nosniff on every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"],
                                      (b"content-security-policy", CSP.encode()),
                                      (b"x-content-type-options", b"nosniff")]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _stream(job: Any, start: int) -> AsyncIterator[str]:
    """Server-sent events: each job event once (id = its index), until the terminal one."""
    i, idle = start, 0.0
    while True:
        events = job.events[i:]
        for event in events:
            yield f"id: {i}\nevent: {event['type']}\ndata: {json.dumps(event)}\n\n"
            i += 1
        if job.finished and i >= len(job.events):
            return
        if events:
            idle = 0.0
        else:
            idle += 0.1
            if idle >= HEARTBEAT:
                idle = 0.0
                yield ": waiting\n\n"
        await asyncio.sleep(0.1)
