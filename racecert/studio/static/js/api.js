// The studio's JSON API (racecert/studio/app.py) and its job event streams.

// The session's token: the URL `racecert studio` printed carries it (?token=...); it is kept
// for this tab (sessionStorage, so that a reload works) and taken out of the address bar,
// then sent with every API call as the X-Racecert-Token header (the server refuses an API
// request without it: 403), and in the URL of the event streams (EventSource sends no headers).
const TOKEN_KEY = "racecert-studio-token";
const token = (() => {
  const params = new URLSearchParams(window.location.search);
  const given = params.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", window.location.pathname + (rest ? `?${rest}` : "") + window.location.hash);
  }
  return given || sessionStorage.getItem(TOKEN_KEY) || "";
})();

export class ApiError extends Error {
  constructor(status, message, body) { super(message); this.status = status; this.body = body; }
}

async function call(method, url, body) {
  const init = { method, headers: token ? { "X-Racecert-Token": token } : {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (e) {
    throw new ApiError(0, "the studio server does not answer (was it stopped?)", null);
  }
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new ApiError(response.status, data.error || `HTTP ${response.status}`, data);
  return data;
}

// The header for a request made without `call` (the cancel sent as the page closes).
export const tokenHeaders = () => (token ? { "X-Racecert-Token": token } : {});

export const api = {
  session: () => call("GET", "/api/session"),
  files: () => call("GET", "/api/files"),
  open: (folder, path) => call("POST", "/api/open", { folder, path }),
  importText: (name, text) => call("POST", "/api/import", { name, text }),
  validate: (document) => call("POST", "/api/validate", { document }),
  save: (document, folder, path, overwrite) =>
    call("POST", "/api/save", { document, folder, path, overwrite }),
  startJob: (kind, document, mode, extra = {}) =>
    call("POST", "/api/jobs", { kind, document, mode, ...extra }),
  cancelJob: (id) => call("POST", `/api/jobs/${id}/cancel`, {}),
};

// Follow a job's server-sent events: onEvent(event) for each, until the terminal one.
export function follow(id, onEvent) {
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const source = new EventSource(`/api/jobs/${id}/events${query}`);
  const terminal = ["result", "error", "cancelled"];
  for (const type of ["step", "bfs", ...terminal]) {
    source.addEventListener(type, (e) => {
      const event = JSON.parse(e.data);
      if (terminal.includes(event.type)) source.close();
      onEvent(event);
    });
  }
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      onEvent({ type: "error", message: "lost the connection to the studio server" });
    }
  };
  return source;
}
