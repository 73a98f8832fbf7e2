// Files: open, new, save, download, the export of the view (SVG, PNG), and the
// unsaved-changes marker and warning.
//
// Save proposes the track's own file when it was opened from a writable folder; else
// (a bundled track, which is package data and read only; a blank grid; a file imported
// from this computer) a file named after the track in the folder the studio was
// started in (the session's "home" folder), never the package's folder.
//
// A track is "unsaved" when its history has moved since the last load or save: the
// latest change then differs from the one that was saved (undoing back to the saved
// state makes it saved again). The page then shows a marker, prefixes the tab's title
// with "●", asks before a reload or close (beforeunload) and before Open or New
// replace the track.

import { $ } from "./dom.js";
import { api, ApiError } from "./api.js";
import { saveBlob, svgToPNG, viewSVG } from "./export.js";
import { TrackDoc } from "./model.js";

export function slug(name) {
  return (name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "") || "track") + ".toml";
}

export class Filing {
  constructor(state, { load, open, status, refreshForm, selectSurface }) {
    this.state = state;
    this.load = load; this.open = open; this.status = status; this.refreshForm = refreshForm;
    this.selectSurface = selectSurface;
    this.savedTop = null;
    this.bind();
  }

  // -- unsaved changes -------------------------------------------------------------------

  top() {
    const done = this.state.history ? this.state.history.done : [];
    return done.length ? done[done.length - 1] : null;
  }

  // A read-only track (a lattice or cell-path view) has nothing to lose.
  dirty() { return !this.state.viewOnly && !!this.state.history && this.top() !== this.savedTop; }

  markSaved() { this.savedTop = this.top(); this.refresh(); }

  refresh() {
    const dirty = this.dirty();
    $("unsaved").hidden = !dirty;
    document.body.dataset.unsaved = String(dirty);
    document.title = `${dirty ? "● " : ""}racecert studio`;
  }

  // Whether the current track may be replaced (no unsaved changes, or the user agrees).
  mayDiscard() {
    return !this.dirty() || window.confirm(
      `“${this.state.doc.name}” has unsaved changes. Discard them?`);
  }

  // -- binding ---------------------------------------------------------------------------

  bind() {
    $("btn-open").addEventListener("click", () => this.openDialog());
    $("btn-new").addEventListener("click", () => $("dlg-new").showModal());
    $("btn-save").addEventListener("click", () => this.saveDialog());
    $("btn-download").addEventListener("click", () => this.download());
    $("btn-export-svg").addEventListener("click", () => this.exportView("svg"));
    $("btn-export-png").addEventListener("click", () => this.exportView("png"));
    $("form-new").addEventListener("submit", (e) => {
      if (e.submitter && e.submitter.value === "ok") this.newGrid();
    });
    $("form-save").addEventListener("submit", (e) => {
      if (e.submitter && e.submitter.value === "ok") { e.preventDefault(); this.save(); }
    });
    $("save-folder").addEventListener("change", () => this.showTarget());
    $("save-path").addEventListener("input", () => this.showTarget());
    $("open-file").addEventListener("change", (e) => this.importFile(e));
    window.addEventListener("beforeunload", (e) => {
      if (!this.dirty()) return;
      e.preventDefault();
      e.returnValue = "";  // older browsers need a value to ask
    });
  }

  // -- open, new ---------------------------------------------------------------------------

  async openDialog() {
    const dlg = $("dlg-open"), list = $("open-list");
    $("open-error").textContent = "";
    list.textContent = "Loading…";
    dlg.showModal();
    try {
      const { folders } = await api.files();
      list.replaceChildren();
      for (const f of folders) {
        const h = document.createElement("h4");
        h.textContent = `${f.label}${f.writable ? "" : " (read only)"}`;
        h.title = f.path;
        const ul = document.createElement("ul");
        for (const path of f.files) {
          const li = document.createElement("li");
          const b = document.createElement("button");
          b.type = "button"; b.textContent = path; b.className = "link";
          b.addEventListener("click", () => this.openFile(f, path));
          li.append(b); ul.append(li);
        }
        if (!f.files.length) {
          const li = document.createElement("li"); li.textContent = "(no track files)"; ul.append(li);
        }
        list.append(h, ul);
      }
    } catch (e) { list.textContent = e.message; }
  }

  async openFile(folder, path) {
    if (!this.mayDiscard()) return;
    try {
      const r = await api.open(folder.index, path);
      $("dlg-open").close();
      this.open(r, folder.writable || r.view ? { folder: folder.index, path } : null);
      if (r.view) this.status(`opened ${path} (${r.view.title}: read only)`);
      else this.status(folder.writable ? `opened ${path}`
        : `opened ${path} (read only: Save… writes a copy into a folder of yours)`);
    } catch (e) { $("open-error").textContent = e.message; }
  }

  async importFile(e) {
    const file = e.target.files[0];
    if (!file) return;
    if (this.mayDiscard()) {
      try {
        const r = await api.importText(file.name, await file.text());
        $("dlg-open").close();
        this.open(r, null);
        this.status(r.view ? `opened ${file.name} (${r.view.title}: read only)`
          : `opened ${file.name} (Save… to keep it in a folder the studio was given)`);
      } catch (err) { $("open-error").textContent = err.message; }
    }
    e.target.value = "";
  }

  newGrid() {
    const w = parseInt($("new-width").value, 10), h = parseInt($("new-height").value, 10);
    if (!(w >= 3 && h >= 3 && w <= 400 && h <= 400)) { this.status("size: 3 to 400 cells each way"); return; }
    if (!this.mayDiscard()) return;
    this.load(TrackDoc.blank(w, h).toJSON(), null, true);
    this.selectSurface("asphalt");
  }

  // -- save, download ------------------------------------------------------------------------

  writable() { return (this.state.session.folders || []).filter((f) => f.writable); }

  saveDialog() {
    const state = this.state, folders = this.writable(), sel = $("save-folder");
    sel.replaceChildren(...folders.map((f) => {
      const o = document.createElement("option");
      o.value = f.index; o.textContent = f.label; o.title = f.path;
      return o;
    }));
    const home = state.session.home;
    if (state.source) sel.value = state.source.folder;
    else if (home !== null && home !== undefined) sel.value = home;
    $("save-path").value = state.source ? state.source.path : slug(state.doc.name);
    $("save-error").textContent = folders.length ? "" : "No writable folder: start the studio with --folder DIR.";
    this.showTarget();
    $("dlg-save").showModal();
  }

  // The file the dialog would write, in full, under the fields.
  showTarget() {
    const f = this.writable().find((x) => String(x.index) === $("save-folder").value);
    const path = $("save-path").value.trim();
    $("save-where").textContent = f && path ? `${f.path.replace(/\/$/, "")}/${path}` : "";
  }

  async save(overwrite = false) {
    const folder = parseInt($("save-folder").value, 10), path = $("save-path").value.trim();
    try {
      const r = await api.save(this.state.doc.toJSON(), folder, path, overwrite);
      $("dlg-save").close();
      this.state.source = { folder, path };
      this.markSaved();
      this.refreshForm();
      this.status(r.verdict.valid ? `saved ${r.saved}` : `saved ${r.saved} — it does not validate yet`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && !overwrite) {
        if (window.confirm(`${path} exists. Replace it?`)) await this.save(true);
        return;
      }
      $("save-error").textContent = e.message;
    }
  }

  stem() {
    const s = this.state;
    return (s.source ? s.source.path.split("/").pop() : slug(s.doc.name)).replace(/\.toml$/, "");
  }

  async download() {
    const s = this.state;
    let toml = s.verdict && s.verdictVersion === s.version ? s.verdict.toml : null;
    if (!toml) {
      try { toml = (await api.validate(s.doc.toJSON())).toml; } catch (e) { this.status(e.message); return; }
    }
    saveBlob(new Blob([toml], { type: "application/toml" }), `${this.stem()}.toml`);
  }

  // -- export of the view ----------------------------------------------------------------------

  exportView(format) {
    const s = this.state, view = s.view;
    const race = view.race ? `_race_step${view.race.k}` : "";
    const title = `${s.doc.name}${view.race ? ` — race, step ${view.race.k} of ${view.race.steps.length}` : ""}`;
    const picture = viewSVG(view, title);
    const name = `${this.stem()}${race}.${format}`;
    if (format === "svg") {
      saveBlob(new Blob([picture.svg], { type: "image/svg+xml" }), name);
      this.status(`exported ${name} (${picture.width}×${picture.height})`);
      return;
    }
    svgToPNG(picture).then((blob) => {
      saveBlob(blob, name);
      this.status(`exported ${name} (${picture.width}×${picture.height} px)`);
    }, (e) => this.status(`PNG export failed: ${e.message}`));
  }
}
