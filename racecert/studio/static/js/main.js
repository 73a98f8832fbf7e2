// The studio page: tools, editing, validation as you draw, jobs and their results.

import { $ } from "./dom.js";
import { api, tokenHeaders } from "./api.js";
import { Filing } from "./filing.js";
import { cancelJob, initJobs, runJob } from "./jobs.js";
import { autoLine, DIRS, History, SURFACES, TrackDoc } from "./model.js";
import { showCertificate, showFigures, showTrajectory, showVerdict, trajectoryCard } from "./panels.js";
import { RacePanel } from "./race.js";
import { View } from "./view.js";

const state = {
  doc: null, history: null, view: null, session: null, source: null,
  tool: "paint", surface: SURFACES[0], shape: "cells", dir: "+x", level: 0,
  version: 0, verdict: null, verdictVersion: -1, validating: 0,
  analysis: null, certificate: null, analysedVersion: -1,
  job: null, pinned: null, drag: null, space: false, blank: false,
};
window.studio = state;  // for the browser tests and the curious

// -- loading a document -----------------------------------------------------------

function load(docJSON, source, blank = false) {
  setViewOnly(null);
  state.doc = TrackDoc.fromJSON(docJSON);
  state.source = source || null;
  state.blank = blank;
  if (state.history) state.history.reset(state.doc);
  else state.history = new History(state.doc, onHistory);
  state.view.setDoc(state.doc);
  state.view.fit();
  statusZoom();
  state.view.setRace(null);
  if (state.race) state.race.reset();
  setResults(null, null);
  state.version++;
  state.filing.markSaved();
  refreshForm();
  validateSoon(0);
}

// -- a lattice or cell-path track, viewed read only ------------------------------------
//
// The editor draws grid tracks; a track of another rule profile opens as a view (the
// server's `track_view`): the note saying why, the track's picture (after Analyse, the
// profile's own picture of the analysis), its facts and its file's text. The editing
// tools, Save, Download, the export of the canvas, undo and redo, the key menu (exact
// only) and the race are off; Analyse and Certify send the file's text.

const EDIT_CONTROLS = ["btn-save", "btn-download", "btn-export-svg", "btn-export-png",
  "btn-undo", "btn-redo", "mode"];
const READ_ONLY_TITLE = "off for this track: the editor draws grid tracks (edit the file as text)";

function setViewOnly(view) {
  const was = !!state.viewOnly;
  state.viewOnly = view;
  if (view) document.body.dataset.viewOnly = "true";
  else delete document.body.dataset.viewOnly;
  $("view-stage").hidden = !view;
  $("view-file").hidden = !view;
  for (const id of EDIT_CONTROLS) {
    const e = $(id);
    if (view) {
      if (!was) e.dataset.title = e.title;
      e.disabled = true;
      e.title = READ_ONLY_TITLE;
    } else if (was) {
      e.disabled = false;
      e.title = e.dataset.title || "";
    }
  }
  if (view) $("mode").value = "exact";
}

// The SVG text (from the studio server: its own picture of the track, or the analysis's
// `_repr_svg_`) parsed as XML and put in the view; nothing in it runs (the page's CSP).
function showPicture(svgText) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg" || doc.querySelector("parsererror")) {
    $("view-picture").replaceChildren();
    status("the picture could not be read");
    return;
  }
  $("view-picture").replaceChildren(document.importNode(root, true));
}

function loadView(view, source) {
  setViewOnly(view);
  state.source = source || null;
  state.blank = false;
  state.view.setRace(null);
  if (state.race) state.race.reset();
  setResults(null, null);
  state.version++;
  $("view-note").textContent = view.note;
  $("view-file-name").textContent = view.file;
  $("view-facts").replaceChildren(...view.facts.map((t) => {
    const li = document.createElement("li"); li.textContent = t; return li;
  }));
  $("view-text").textContent = view.text;
  $("doc-title").textContent = `${view.name} · ${view.title} · ${source ? source.path : view.file}`;
  $("hint").hidden = true;
  statusZoom();
  showVerdict({ valid: true, summary: `${view.title}, ${view.width}×${view.height}`, messages: [] },
    () => {});
  state.filing.markSaved();
}

// What Open, Import and the session's initial track give: a grid track's document, or
// a read-only view.
function open(opened, source) {
  if (opened.view) loadView(opened.view, source);
  else load(opened.document, source);
}

function setResults(analysis, certificate) {
  state.analysis = analysis;
  state.certificate = certificate;
  state.pinned = null;
  state.analysedVersion = state.version;
  if (state.viewOnly) showPicture(analysis ? analysis.svg : state.viewOnly.picture);
  else state.view.setAnalysis(analysis);
  showFigures(analysis, certificate);
  showCertificate(certificate);
  showTrajectory(null);
  $("toggles").hidden = !analysis || !analysis.trajectories.length;
  $("stale").hidden = true;
}

// -- history and form -----------------------------------------------------------------

function onHistory(tx) {
  if (tx.grids) state.view.setDoc(state.doc);
  else state.view.refreshCells(tx.cells.map((c) => c[0]));
  state.version++;
  state.blank = false;
  state.filing.refresh();
  refreshForm();
  validateSoon();
  if (state.analysis) $("stale").hidden = state.version === state.analysedVersion;
}

function change(label, fn) {
  state.history.begin(label);
  fn(state.doc);
  state.history.commit();
}

function refreshForm() {
  const d = state.doc;
  $("f-name").value = d.name;
  $("f-kind").value = d.kind || "";
  $("f-description").value = d.description;
  $("f-width").value = d.width;
  $("f-height").value = d.height;
  $("f-opening").checked = !!d.opening;
  $("opening-fields").classList.toggle("off", !d.opening);
  for (const id of ["f-moves", "f-maxspeed", "f-straight"]) $(id).disabled = !d.opening;
  $("f-moves").value = d.opening ? d.opening.moves : "";
  $("f-maxspeed").value = d.opening && d.opening.max_speed !== null ? d.opening.max_speed : "";
  $("f-straight").checked = !!(d.opening && d.opening.straight);
  $("doc-title").textContent = `${d.name} · ${d.width}×${d.height}` +
    (state.source ? ` · ${state.source.path}` : "");
  const lineText = (l) => `${l.axis} = ${l.k}, ${l.axis === "x" ? "rows" : "columns"} ` +
    `${l.span[0]}–${l.span[1]}, crossing ${l.dir}, ${l.layer ? "elevated" : "ground"}`;
  const car = d.car;
  $("placement").replaceChildren(...[
    `Car (${car.position[0]}, ${car.position[1]}) facing ${car.direction}, ` +
      `${car.layer ? "elevated" : "ground"}${car.slots.length ? `, ${car.slots.length} more slot(s)` : ""}`,
    `Start: ${lineText(d.start)}`, `Finish: ${lineText(d.finish)}`,
  ].map((t) => { const p = document.createElement("div"); p.textContent = t; return p; }));
  $("btn-undo").disabled = !state.history.done.length;
  $("btn-redo").disabled = !state.history.undone.length;
  $("hint").hidden = !state.blank;
  if (state.blank) showHint();
}

function showHint() {
  const steps = [
    "1 · Paint the road: pick Asphalt and drag over the grid (Shift+drag paints a rectangle).",
    "2 · Click “Car + circuit lines”, choose the direction of travel, and click a road cell: " +
      "the car goes there, the start line just ahead of it, the finish line two cells behind " +
      "(a lap ends by coming round). For a stage, place the Start and Finish lines yourself.",
    "3 · Fix what the validator marks in red on the grid, then Analyse.",
  ];
  $("hint").replaceChildren(...steps.map((t) => { const p = document.createElement("p"); p.textContent = t; return p; }));
}

function bindForm() {
  const meta = (label, fn) => () => change(label, fn);
  $("f-name").addEventListener("change", meta("name", (d) => { d.name = $("f-name").value; }));
  $("f-kind").addEventListener("change", meta("kind", (d) => { d.kind = $("f-kind").value || null; }));
  $("f-description").addEventListener("change",
    meta("description", (d) => { d.description = $("f-description").value; }));
  $("f-opening").addEventListener("change", meta("opening", (d) => {
    d.opening = $("f-opening").checked ? { moves: 1, max_speed: 1, straight: false } : null;
  }));
  const openingField = meta("opening", (d) => {
    if (!d.opening) return;
    const k = parseInt($("f-moves").value, 10), v = parseInt($("f-maxspeed").value, 10);
    d.opening = { moves: Number.isFinite(k) ? k : 1, max_speed: Number.isFinite(v) ? v : null,
      straight: $("f-straight").checked };
  });
  for (const id of ["f-moves", "f-maxspeed", "f-straight"]) $(id).addEventListener("change", openingField);
  $("btn-resize").addEventListener("click", () => {
    const w = parseInt($("f-width").value, 10), h = parseInt($("f-height").value, 10);
    if (!(w >= 3 && h >= 3 && w <= 400 && h <= 400)) { status("size: 3 to 400 cells each way"); return; }
    state.history.begin("resize");
    state.history.resize(w, h);
    state.history.commit();
    state.view.fit();
  });
}

// -- validation as you draw -----------------------------------------------------------

let validateTimer = null;
function validateSoon(delay = 200) {
  clearTimeout(validateTimer);
  if (state.viewOnly) return;  // a read-only track was validated as it was opened
  validateTimer = setTimeout(validateNow, delay);
}

async function validateNow() {
  const version = state.version;
  const seq = ++state.validating;
  try {
    const verdict = await api.validate(state.doc.toJSON());
    if (seq !== state.validating || state.viewOnly) return;
    state.verdict = verdict;
    state.verdictVersion = version;
    state.view.messages = verdict.messages;
    state.view.invalidate();
    showVerdict(verdict, pickMessage);
    markFields(verdict);
  } catch (e) {
    if (seq === state.validating) status(e.message);
  }
}

const FIELD_IDS = { name: "f-name", kind: "f-kind", description: "f-description",
  "opening.moves": "f-moves", "opening.max_speed": "f-maxspeed", "opening.straight": "f-straight",
  opening: "f-opening" };
function markFields(verdict) {
  document.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  for (const m of verdict.messages) {
    const id = FIELD_IDS[m.target.field];
    if (id) $(id).classList.add("invalid");
  }
}

function pickMessage(m) {
  const v = state.view;
  let cell = m.target.cells[0];
  if (!cell && m.target.line) {
    const l = state.doc[m.target.line];
    cell = l.axis === "x" ? [l.k, l.span[0]] : [l.span[0], l.k];
  }
  if (cell) {
    const r = v.canvas.getBoundingClientRect();
    v.ox = r.width / 2 - (cell[0] + 0.5) * v.scale;
    v.oy = r.height / 2 - (cell[1] + 0.5) * v.scale;
    v.invalidate();
  }
  const id = FIELD_IDS[m.target.field];
  if (id) $(id).focus();
}

// -- tools on the canvas ----------------------------------------------------------------

function cellAt(e) {
  const r = state.view.canvas.getBoundingClientRect();
  const [fx, fy] = state.view.toCell(e.clientX - r.left, e.clientY - r.top);
  return [Math.floor(fx), Math.floor(fy)];
}

function lineFromCell(x, y, dir, layer) { return autoLine(state.doc, x, y, dir, layer); }

// The level a placement uses: the chosen one, unless the clicked cell has only the other.
function levelAt(x, y) {
  const d = state.doc;
  const g = d.drivable(0, x, y), e = d.drivable(1, x, y);
  if (g && !e) return 0;
  if (e && !g) return 1;
  return state.level;
}

function placements(x, y) {
  const dir = state.dir, layer = levelAt(x, y);
  const [dx, dy] = DIRS[dir];
  switch (state.tool) {
    case "start": return { start: lineFromCell(x, y, dir, layer) };
    case "finish": return { finish: lineFromCell(x, y, dir, layer) };
    case "car": return { car: { position: [x, y], direction: dir, layer } };
    case "circuit": return {
      car: { position: [x, y], direction: dir, layer },
      start: lineFromCell(x, y, dir, layer),
      finish: lineFromCell(x - 2 * dx, y - 2 * dy, dir, layer),
    };
    default: return null;
  }
}

function place(x, y) {
  const d = state.doc;
  if (!d.inside(x, y)) return;
  if (state.tool === "slot") {
    change("slot", (doc) => {
      const i = doc.car.slots.findIndex((p) => p[0] === x && p[1] === y);
      if (i >= 0) doc.car.slots.splice(i, 1); else doc.car.slots.push([x, y]);
    });
    return;
  }
  const p = placements(x, y);
  change(state.tool, (doc) => {
    if (p.car) doc.car = { ...doc.car, ...p.car, slots: doc.car.slots };
    if (p.start) doc.start = p.start;
    if (p.finish) doc.finish = p.finish;
  });
}

// Cells on the segment between two cells (a fast drag skips none).
function* cellsBetween([x0, y0], [x1, y1]) {
  const dx = Math.abs(x1 - x0), dy = -Math.abs(y1 - y0);
  const sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  for (;;) {
    yield [x0, y0];
    if (x0 === x1 && y0 === y1) return;
    const e2 = 2 * err;
    if (e2 >= dy) { err += dy; x0 += sx; }
    if (e2 <= dx) { err += dx; y0 += sy; }
  }
}

function paintCells(cells) {
  const changed = [];
  for (const [x, y] of cells) {
    if (state.history.paint(x, y, state.surface)) changed.push(y * state.doc.width + x);
  }
  if (changed.length) state.view.refreshCells(changed);
}

function rectOf(a, b) {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
}

function bindCanvas() {
  const v = state.view, canvas = v.canvas;
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    const cell = cellAt(e);
    if (e.button !== 0 || state.tool === "hand" || state.space) {
      state.drag = { kind: "pan", x: e.clientX, y: e.clientY };
      canvas.classList.add("panning");
      return;
    }
    if (state.tool === "paint") {
      state.history.begin(`paint ${state.surface.id}`);
      if (state.shape === "rect" || e.shiftKey) {
        state.drag = { kind: "rect", from: cell };
        v.preview = { rect: rectOf(cell, cell) };
        v.invalidate();
      } else {
        state.drag = { kind: "paint", last: cell };
        paintCells([cell]);
      }
      return;
    }
    place(...cell);
  });
  canvas.addEventListener("pointermove", (e) => {
    const cell = cellAt(e);
    const drag = state.drag;
    if (drag && drag.kind === "pan") {
      v.panBy(e.clientX - drag.x, e.clientY - drag.y);
      drag.x = e.clientX; drag.y = e.clientY;
      return;
    }
    if (drag && drag.kind === "paint") {
      paintCells(cellsBetween(drag.last, cell));
      drag.last = cell;
    } else if (drag && drag.kind === "rect") {
      v.preview = { rect: rectOf(drag.from, cell) };
    }
    hoverAt(e, cell);
  });
  const end = (e) => {
    const drag = state.drag;
    state.drag = null;
    canvas.classList.remove("panning");
    if (!drag) return;
    if (drag.kind === "rect") {
      const [x0, y0, x1, y1] = rectOf(drag.from, cellAt(e));
      const cells = [];
      for (let y = Math.max(0, y0); y <= Math.min(state.doc.height - 1, y1); y++)
        for (let x = Math.max(0, x0); x <= Math.min(state.doc.width - 1, x1); x++) cells.push([x, y]);
      paintCells(cells);
      v.preview = null;
    }
    if (drag.kind !== "pan") state.history.commit();
    v.invalidate();
  };
  canvas.addEventListener("pointerup", end);
  canvas.addEventListener("pointercancel", end);
  canvas.addEventListener("pointerleave", () => {
    v.hover = null; v.hoverTraj = null; $("tooltip").hidden = true;
    if (!state.drag || state.drag.kind !== "rect") v.preview = null;
    v.invalidate();
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    v.zoomAt(Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.0015)), e.clientX - r.left, e.clientY - r.top);
    statusZoom();
  }, { passive: false });
  canvas.addEventListener("click", () => {
    if (state.view.hoverTraj) {
      state.pinned = state.view.hoverTraj;
      showTrajectory(state.pinned.traj, state.pinned.step);
    }
  });
}

const SURFACE_NAMES = { "#": "wall", ".": "asphalt", ":": "shoulder", "/": "ramp", " ": "—", "=": "road" };

function hoverAt(e, cell) {
  const v = state.view, d = state.doc;
  v.hover = cell;
  const [x, y] = cell;
  if (d.inside(x, y)) {
    const i = y * d.width + x;
    const g = SURFACE_NAMES[String.fromCharCode(d.ground[i])];
    const el = SURFACE_NAMES[String.fromCharCode(d.elev[i])];
    $("st-cell").textContent = `cell (${x}, ${y}) · ground ${g}${el !== "—" ? ` · elevated ${el}` : ""}`;
  } else {
    $("st-cell").textContent = "";
  }
  const p = ["start", "finish", "car", "circuit"].includes(state.tool) && d.inside(x, y)
    ? placements(x, y) : null;
  if (!state.drag || state.drag.kind !== "rect") {
    v.preview = p ? { lines: [p.start && [p.start, false], p.finish && [p.finish, true]].filter(Boolean) } : null;
  }
  const r = v.canvas.getBoundingClientRect();
  const hit = state.drag ? null : v.pick(e.clientX - r.left, e.clientY - r.top);
  v.hoverTraj = hit;
  const tip = $("tooltip");
  if (hit) {
    tip.replaceChildren(...trajectoryCard(hit.traj, hit.step));
    tip.hidden = false;
    const sr = $("stage").getBoundingClientRect();
    let left = e.clientX - sr.left + 16, top = e.clientY - sr.top + 16;
    if (left + tip.offsetWidth > sr.width - 8) left = e.clientX - sr.left - tip.offsetWidth - 16;
    if (top + tip.offsetHeight > sr.height - 8) top = e.clientY - sr.top - tip.offsetHeight - 16;
    tip.style.left = `${Math.max(4, left)}px`;
    tip.style.top = `${Math.max(4, top)}px`;
    showTrajectory(hit.traj, hit.step);
  } else {
    tip.hidden = true;
  }
  v.invalidate();
}

// -- tool palette and keys ------------------------------------------------------------------

function selectTool(tool) {
  state.tool = tool;
  document.querySelectorAll("[data-tool]").forEach((b) => b.classList.toggle("on", b.dataset.tool === tool));
  document.querySelectorAll("[data-surface]").forEach((b) =>
    b.classList.toggle("on", tool === "paint" && b.dataset.surface === state.surface.id));
  state.view.canvas.classList.toggle("hand", tool === "hand");
  state.view.preview = null;
  state.view.invalidate();
}

function selectSurface(id) {
  state.surface = SURFACES.find((s) => s.id === id);
  selectTool("paint");
}

function bindPalette() {
  const box = $("surfaces");
  for (const s of SURFACES) {
    const b = document.createElement("button");
    b.dataset.surface = s.id;
    b.title = `${s.tip} (${s.key})`;
    const sw = document.createElement("i");
    sw.className = `sw surface-${s.id}`;
    b.append(sw, document.createTextNode(s.label));
    b.addEventListener("click", () => selectSurface(s.id));
    box.append(b);
  }
  document.querySelectorAll("[data-tool]").forEach((b) =>
    b.addEventListener("click", () => selectTool(b.dataset.tool)));
  const seg = (id, attr, set) => document.querySelectorAll(`#${id} [data-${attr}]`).forEach((b) =>
    b.addEventListener("click", () => {
      document.querySelectorAll(`#${id} [data-${attr}]`).forEach((o) => o.classList.toggle("on", o === b));
      set(b.dataset[attr]);
      state.view.invalidate();
    }));
  seg("shape", "shape", (v) => { state.shape = v; selectTool("paint"); });
  seg("direction", "dir", (v) => { state.dir = v; });
  seg("level", "level", (v) => { state.level = Number(v); });
  document.querySelectorAll("[data-show]").forEach((c) => c.addEventListener("change", () => {
    state.view.show[c.dataset.show] = c.checked;
    state.view.invalidate();
  }));
  selectSurface("asphalt");
}

function bindKeys() {
  window.addEventListener("keydown", (e) => {
    if (state.viewOnly || e.target.closest("input, textarea, select, dialog")) return;
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === "z") { e.preventDefault(); (e.shiftKey ? redo : undo)(); return; }
    if ((e.ctrlKey || e.metaKey) && k === "y") { e.preventDefault(); redo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " ") { state.space = true; state.view.canvas.classList.add("hand"); e.preventDefault(); return; }
    const s = SURFACES.find((x) => x.key === e.key);
    if (s) { selectSurface(s.id); return; }
    const tools = { c: "circuit", v: "car", s: "start", f: "finish", h: "hand" };
    if (tools[k]) { selectTool(tools[k]); return; }
    if (e.key === "0") { state.view.fit(); statusZoom(); return; }
    const arrows = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] };
    if (arrows[e.key]) { e.preventDefault(); state.view.panBy(...arrows[e.key]); }
  });
  window.addEventListener("keyup", (e) => {
    if (e.key === " ") { state.space = false; state.view.canvas.classList.toggle("hand", state.tool === "hand"); }
  });
}

function undo() { if (state.history.undo()) status("undone"); }
function redo() { if (state.history.redo()) status("redone"); }

function status(text) { $("st-msg").textContent = text; }
function statusZoom() {
  $("st-zoom").textContent = state.viewOnly ? "" : `zoom ${Math.round(state.view.scale)} px/cell`;
}

// -- start --------------------------------------------------------------------------------------

async function main() {
  state.view = new View($("canvas"));
  bindPalette();
  bindCanvas();
  bindKeys();
  bindForm();
  state.filing = new Filing(state, { load, open, status, refreshForm, selectSurface });
  initJobs(state, { setResults });
  $("btn-undo").addEventListener("click", undo);
  $("btn-redo").addEventListener("click", redo);
  $("btn-fit").addEventListener("click", () => { state.view.fit(); statusZoom(); });
  $("btn-analyse").addEventListener("click", () => runJob("analyze"));
  $("btn-certify").addEventListener("click", () => runJob("certify"));
  $("btn-cancel").addEventListener("click", cancelJob);
  window.addEventListener("pagehide", () => {
    if (state.job) fetch(`/api/jobs/${state.job.id}/cancel`, { method: "POST", keepalive: true,
      headers: { "Content-Type": "application/json", ...tokenHeaders() }, body: "{}" });
  });
  try {
    state.session = await api.session();
  } catch (e) {
    status(e.message);
    state.session = { folders: [] };
  }
  const race = state.session.race;
  if (race && race.drivers && race.drivers.length) {
    state.race = new RacePanel(race, state.view, (options) => runJob("race", options),
      () => { state.view.hoverTraj = null; $("tooltip").hidden = true; });
  }
  const initial = state.session.initial;
  if (initial && initial.new) {  // `racecert studio my_tracks/ring.toml`: a file to come
    const blank = TrackDoc.blank(30, 20);
    blank.name = initial.name;
    load(blank.toJSON(), initial.source, true);
    status(`a new track: Save… writes ${initial.source.path}`);
  } else if (initial) open(initial, initial.source);
  else load(TrackDoc.blank(30, 20).toJSON(), null, true);
  statusZoom();
  document.body.dataset.ready = "true";
}

main();
