// The canvas: the grid as one image per level (one pixel per cell, scaled up without
// smoothing), so that a 200x200 track draws and pans as fast as a small one; the
// trajectories, lines, car, messages and previews are drawn on top in screen space.
//
// Drawing order (the same as the SVG of `racecert analyze`): ground, red coverage,
// trajectory parts on the ground, the elevated deck (translucent, hatched: what runs
// under it shows through, a tunnel), trajectory parts on the deck (white edge: the
// bridge), S and F lines, car and slots, validator messages, the tool's preview.

import { CH } from "./model.js";

export const COLORS = {
  off: "#3a4a3a", asphalt: "#dadada", shoulder: "#e0c27a", ramp: "#f0913a",
  deck: "#4a78c8", deckShoulder: "#e0c27a", red: "#e0201b",
  yellow: "#e6b800", green: "#1f9d3a", blue: "#1f4fd1",
};
// name -> [width in cells, dash in cells or null, dot radius in cells]
export const STYLES = { yellow: [0.34, null, 0.16], green: [0.2, null, 0.11], blue: [0.13, [0.3, 0.2], 0.07] };
// How the analysis (trajectories, coverage) shows under a race: the race is its own layer.
export const UNDER_RACE = { faded: 0.2, hidden: 0, shown: 1 };
export const ARROW = { "+x": "→", "-x": "←", "+y": "↓", "-y": "↑" };

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
const GROUND_RGB = {
  [CH.wall]: rgb(COLORS.off), [CH.asphalt]: rgb(COLORS.asphalt),
  [CH.shoulder]: rgb(COLORS.shoulder), [CH.ramp]: rgb(COLORS.ramp),
};
const ELEV_RGBA = {
  [CH.deck]: [...rgb(COLORS.deck), 150], [CH.shoulder]: [...rgb(COLORS.deckShoulder), 170],
  [CH.ramp]: [0, 0, 0, 0],
};

export class View {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.doc = null;
    this.scale = 20; this.ox = 20; this.oy = 20;  // screen px per cell; cell (0,0) corner
    this.ground = document.createElement("canvas");
    this.deck = document.createElement("canvas");
    this.cover = document.createElement("canvas");
    this.analysis = null;          // the payload of the last analysis
    this.race = null;              // {colors, steps, frame, k}: the race replay's state
    this.show = { yellow: true, green: true, blue: true, red: true };
    this.underRace = "faded";      // the analysis under a race: faded, hidden or shown
    this.messages = [];            // validator messages with targets
    this.hover = null;             // {x, y} cell under the mouse
    this.hoverTraj = null;         // {traj, step}
    this.preview = null;           // {rect: [x0,y0,x1,y1]} or {line: {...}} or {car: [x,y]}
    this.pending = false;
    this.hatch = null;
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
    this.resize();
  }

  resize() {
    const r = this.canvas.parentElement.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.floor(r.width * dpr));
    this.canvas.height = Math.max(1, Math.floor(r.height * dpr));
    this.canvas.style.width = `${r.width}px`;
    this.canvas.style.height = `${r.height}px`;
    this.dpr = dpr;
    this.invalidate();
  }

  setDoc(doc) {
    this.doc = doc;
    this.ground.width = this.deck.width = this.cover.width = doc.width;
    this.ground.height = this.deck.height = this.cover.height = doc.height;
    this.groundData = this.ground.getContext("2d").createImageData(doc.width, doc.height);
    this.deckData = this.deck.getContext("2d").createImageData(doc.width, doc.height);
    this.refreshCells(null);
    this.setCoverage(this.analysis && this.analysis.coverage);
  }

  // Repaint the level images for `cells` (flat indices), or every cell when null.
  refreshCells(cells) {
    const d = this.doc;
    const g = this.groundData.data, e = this.deckData.data;
    const put = (i) => {
      const [r, gg, b] = GROUND_RGB[d.ground[i]] || [255, 0, 255];
      g[4 * i] = r; g[4 * i + 1] = gg; g[4 * i + 2] = b; g[4 * i + 3] = 255;
      const ev = ELEV_RGBA[d.elev[i]] || [0, 0, 0, 0];
      e[4 * i] = ev[0]; e[4 * i + 1] = ev[1]; e[4 * i + 2] = ev[2]; e[4 * i + 3] = ev[3];
    };
    if (cells === null) {
      for (let i = 0; i < d.width * d.height; i++) put(i);
      this.ground.getContext("2d").putImageData(this.groundData, 0, 0);
      this.deck.getContext("2d").putImageData(this.deckData, 0, 0);
    } else {
      let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
      for (const i of cells) {
        put(i);
        const x = i % d.width, y = Math.floor(i / d.width);
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
      if (x1 >= 0) {
        const w = x1 - x0 + 1, h = y1 - y0 + 1;
        this.ground.getContext("2d").putImageData(this.groundData, 0, 0, x0, y0, w, h);
        this.deck.getContext("2d").putImageData(this.deckData, 0, 0, x0, y0, w, h);
      }
    }
    this.invalidate();
  }

  setAnalysis(payload) {
    this.analysis = payload;
    this.hoverTraj = null;
    this.setCoverage(payload && payload.coverage);
  }

  setRace(race) { this.race = race; this.invalidate(); }

  // The opacity of the analysis layer: 1, or UNDER_RACE[underRace] while a race is shown.
  analysisOpacity() { return this.race ? UNDER_RACE[this.underRace] : 1; }

  setCoverage(cov) {
    const ctx = this.cover.getContext("2d");
    ctx.clearRect(0, 0, this.cover.width, this.cover.height);
    if (cov && this.doc) {
      const img = ctx.createImageData(this.doc.width, this.doc.height);
      for (const [x, y] of cov.cells) {
        if (!this.doc.inside(x, y)) continue;
        const i = 4 * (y * this.doc.width + x);
        img.data[i] = 224; img.data[i + 1] = 32; img.data[i + 2] = 27; img.data[i + 3] = 255;
      }
      ctx.putImageData(img, 0, 0);
    }
    this.invalidate();
  }

  // -- camera ---------------------------------------------------------------------

  fit() {
    if (!this.doc) return;
    const w = this.canvas.width / this.dpr, h = this.canvas.height / this.dpr;
    const s = Math.max(2, Math.min(48, Math.min((w - 40) / this.doc.width, (h - 40) / this.doc.height)));
    this.scale = s;
    this.ox = (w - s * this.doc.width) / 2;
    this.oy = (h - s * this.doc.height) / 2;
    this.invalidate();
  }

  zoomAt(factor, sx, sy) {
    const s = Math.max(1, Math.min(96, this.scale * factor));
    const f = s / this.scale;
    this.ox = sx - (sx - this.ox) * f;
    this.oy = sy - (sy - this.oy) * f;
    this.scale = s;
    this.invalidate();
  }

  panBy(dx, dy) { this.ox += dx; this.oy += dy; this.invalidate(); }

  // Screen point (CSS px relative to the canvas) -> cell coordinates (fractional).
  toCell(sx, sy) { return [(sx - this.ox) / this.scale, (sy - this.oy) / this.scale]; }

  // The page coordinates of a cell's centre (the browser tests click there).
  cellToClient(x, y) {
    const r = this.canvas.getBoundingClientRect();
    return [r.left + this.ox + (x + 0.5) * this.scale, r.top + this.oy + (y + 0.5) * this.scale];
  }

  invalidate() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  // -- drawing --------------------------------------------------------------------

  draw() {
    const ctx = this.ctx, d = this.doc;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = "#f3f4f6";
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    if (!d) return;
    const s = this.scale, W = d.width * s, H = d.height * s;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.ground, this.ox, this.oy, W, H);
    const a = this.analysis, fade = this.analysisOpacity();
    if (a && a.coverage && this.show.red && fade > 0) {
      ctx.globalAlpha = 0.3 * fade;
      ctx.drawImage(this.cover, this.ox, this.oy, W, H);
      ctx.globalAlpha = 1;
    }
    if (s >= 8) this.gridLines();
    this.fadedTrajectories(0, fade);
    ctx.drawImage(this.deck, this.ox, this.oy, W, H);
    if (s >= 6) this.deckHatch();
    this.fadedTrajectories(1, fade);
    this.line(d.start, false);
    this.line(d.finish, true);
    if (this.race) this.raceOverlay(); else this.car();
    this.diagnostics();
    this.tool();
    this.label(d.start, "S");
    this.label(d.finish, "F");
  }

  visibleRange() {
    const d = this.doc, s = this.scale;
    const w = this.canvas.width / this.dpr, h = this.canvas.height / this.dpr;
    return [Math.max(0, Math.floor(-this.ox / s)), Math.max(0, Math.floor(-this.oy / s)),
      Math.min(d.width - 1, Math.ceil((w - this.ox) / s)),
      Math.min(d.height - 1, Math.ceil((h - this.oy) / s))];
  }

  gridLines() {
    const ctx = this.ctx, s = this.scale;
    const [x0, y0, x1, y1] = this.visibleRange();
    ctx.strokeStyle = "rgba(0,0,0,0.08)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = x0; x <= x1 + 1; x++) {
      const px = Math.round(this.ox + x * s) + 0.5;
      ctx.moveTo(px, this.oy + y0 * s); ctx.lineTo(px, this.oy + (y1 + 1) * s);
    }
    for (let y = y0; y <= y1 + 1; y++) {
      const py = Math.round(this.oy + y * s) + 0.5;
      ctx.moveTo(this.ox + x0 * s, py); ctx.lineTo(this.ox + (x1 + 1) * s, py);
    }
    ctx.stroke();
  }

  deckHatch() {
    const ctx = this.ctx, s = this.scale, d = this.doc;
    if (!this.hatch) {
      const p = document.createElement("canvas");
      p.width = p.height = 8;
      const c = p.getContext("2d");
      c.strokeStyle = "rgba(27,58,128,0.55)";
      c.lineWidth = 1.2;
      c.beginPath(); c.moveTo(0, 8); c.lineTo(8, 0); c.moveTo(-2, 2); c.lineTo(2, -2);
      c.moveTo(6, 10); c.lineTo(10, 6); c.stroke();
      this.hatch = ctx.createPattern(p, "repeat");
    }
    const [x0, y0, x1, y1] = this.visibleRange();
    ctx.fillStyle = this.hatch;
    ctx.strokeStyle = "rgba(27,58,128,0.9)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let y = y0; y <= y1; y++) {
      let x = x0;
      while (x <= x1) {
        const on = (xx) => d.elev[y * d.width + xx] === CH.deck || d.elev[y * d.width + xx] === CH.shoulder;
        if (!on(x)) { x++; continue; }
        let e = x;
        while (e + 1 <= x1 && on(e + 1)) e++;
        ctx.rect(this.ox + x * s, this.oy + y * s, (e - x + 1) * s, s);
        x = e + 1;
      }
    }
    ctx.fill();
    // outline: edges between deck and not-deck
    ctx.beginPath();
    const deck = (x, y) => d.inside(x, y) && d.elev[y * d.width + x] !== CH.off
      && d.elev[y * d.width + x] !== CH.ramp;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        if (!deck(x, y)) continue;
        const px = this.ox + x * s, py = this.oy + y * s;
        if (!deck(x - 1, y)) { ctx.moveTo(px, py); ctx.lineTo(px, py + s); }
        if (!deck(x + 1, y)) { ctx.moveTo(px + s, py); ctx.lineTo(px + s, py + s); }
        if (!deck(x, y - 1)) { ctx.moveTo(px, py); ctx.lineTo(px + s, py); }
        if (!deck(x, y + 1)) { ctx.moveTo(px, py + s); ctx.lineTo(px + s, py + s); }
      }
    }
    ctx.stroke();
  }

  centre(p) { return [this.ox + (p[0] + 0.5) * this.scale, this.oy + (p[1] + 0.5) * this.scale]; }

  // The trajectories of `layer` drawn whole on a layer of their own, then composited at
  // opacity `fade` (so that crossings do not darken where two strokes overlap).
  fadedTrajectories(layer, fade) {
    if (fade >= 1) { this.trajectories(layer); return; }
    if (fade <= 0 || !this.analysis) return;
    if (!this.layer) this.layer = document.createElement("canvas");
    const off = this.layer, main = this.ctx;
    if (off.width !== this.canvas.width || off.height !== this.canvas.height) {
      off.width = this.canvas.width; off.height = this.canvas.height;
    }
    const octx = off.getContext("2d");
    octx.setTransform(1, 0, 0, 1, 0, 0);
    octx.clearRect(0, 0, off.width, off.height);
    octx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    this.ctx = octx;
    try { this.trajectories(layer); } finally { this.ctx = main; }
    main.save();
    main.setTransform(1, 0, 0, 1, 0, 0);
    main.globalAlpha = fade;
    main.drawImage(off, 0, 0);
    main.restore();
  }

  // Moves drawn on `layer`: a move belongs to the higher of its two end layers.
  trajectories(layer) {
    const a = this.analysis;
    if (!a) return;
    const ctx = this.ctx, s = this.scale;
    for (const t of a.trajectories) {
      if (!this.show[t.name]) continue;
      const [wc, dash, dot] = STYLES[t.name];
      const width = Math.max(1.5, wc * s);
      const parts = [];
      t.steps.forEach((st, i) => {
        if (Math.max(st.layers[0], st.layers[1]) === layer) parts.push(i);
      });
      if (!parts.length && !t.layers.some((l) => l === layer)) continue;
      const path = new Path2D();
      let prev = -2;
      for (const i of parts) {
        const [x0, y0] = this.centre(t.positions[i]), [x1, y1] = this.centre(t.positions[i + 1]);
        if (i !== prev + 1) path.moveTo(x0, y0);
        path.lineTo(x1, y1);
        prev = i;
      }
      ctx.lineJoin = "round"; ctx.lineCap = "round";
      if (layer === 1) {
        ctx.setLineDash([]);
        ctx.strokeStyle = "#fff"; ctx.lineWidth = width + 3;
        ctx.stroke(path);
      }
      ctx.strokeStyle = COLORS[t.name]; ctx.lineWidth = width;
      ctx.setLineDash(dash ? dash.map((v) => Math.max(2, v * s)) : []);
      ctx.stroke(path);
      ctx.setLineDash([]);
      const r = Math.max(1.5, dot * s);
      ctx.fillStyle = COLORS[t.name]; ctx.strokeStyle = "#fff"; ctx.lineWidth = 0.8;
      t.positions.forEach((p, i) => {
        if (t.layers[i] !== layer) return;
        const [cx, cy] = this.centre(p);
        ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      });
      const h = this.hoverTraj;
      if (h && h.traj === t && h.step !== null) {
        const st = t.steps[h.step];
        if (Math.max(st.layers[0], st.layers[1]) === layer) {
          const [x0, y0] = this.centre(st.from), [x1, y1] = this.centre(st.to);
          ctx.strokeStyle = "#000"; ctx.lineWidth = width + 4; ctx.globalAlpha = 0.35;
          ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
          ctx.globalAlpha = 1;
          ctx.strokeStyle = COLORS[t.name]; ctx.lineWidth = width + 1;
          ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
        }
      }
    }
  }

  // The race replay: each car's trail up to car-turn k, blocked or waiting marks of the
  // current turn, and every car (numbered, in its colour) where it stands after it; a car
  // that has finished is drawn faded (it has left the track), as on the replay page.
  raceOverlay() {
    const r = this.race;
    if (!r) return;
    const ctx = this.ctx, s = this.scale;
    ctx.lineCap = "round"; ctx.lineJoin = "round"; ctx.setLineDash([]);
    for (let i = 0; i < r.k; i++) {
      const st = r.steps[i];
      const [x0, y0] = this.centre(st.before), [x1, y1] = this.centre(st.after);
      ctx.strokeStyle = r.colors[st.car]; ctx.lineWidth = Math.max(1.5, s * 0.12);
      ctx.globalAlpha = i === r.k - 1 ? 1 : 0.7;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    }
    ctx.globalAlpha = 1;
    const cur = r.steps[r.k - 1];
    for (const e of cur ? cur.events : []) {
      if (!e.cell) continue;
      const [cx, cy] = this.centre(e.cell), q = s * 0.35;
      ctx.strokeStyle = r.colors[cur.car]; ctx.lineWidth = 3;
      ctx.beginPath(); ctx.moveTo(cx - q, cy - q); ctx.lineTo(cx + q, cy + q);
      ctx.moveTo(cx - q, cy + q); ctx.lineTo(cx + q, cy - q); ctx.stroke();
    }
    const rad = Math.max(4, s * 0.32);
    r.frame.forEach((p, i) => {
      const [cx, cy] = this.centre(p);
      ctx.globalAlpha = (r.gone || []).includes(i) ? 0.35 : 1;  // finished: left the track
      ctx.fillStyle = r.colors[i]; ctx.strokeStyle = "#fff"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(cx, cy, rad, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      ctx.fillStyle = "#fff"; ctx.font = `bold ${Math.round(rad * 1.1)}px system-ui, sans-serif`;
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText(String(i), cx, cy + 1);
    });
    ctx.globalAlpha = 1;
  }

  lineEnds(line) {
    const s = this.scale;
    if (line.axis === "x") {
      const x = this.ox + (line.k + 1) * s;
      return [x, this.oy + line.span[0] * s, x, this.oy + (line.span[1] + 1) * s];
    }
    const y = this.oy + (line.k + 1) * s;
    return [this.ox + line.span[0] * s, y, this.ox + (line.span[1] + 1) * s, y];
  }

  line(line, finish, ghost = false) {
    const ctx = this.ctx;
    const [x1, y1, x2, y2] = this.lineEnds(line);
    ctx.globalAlpha = ghost ? 0.6 : 1;
    ctx.setLineDash([]);
    ctx.lineCap = "butt";
    ctx.strokeStyle = finish ? "#fff" : "#111"; ctx.lineWidth = 6;
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    if (finish) {
      const q = Math.max(3, this.scale / 4);
      ctx.setLineDash([q, q]); ctx.strokeStyle = "#111"; ctx.lineWidth = 5;
    } else {
      ctx.strokeStyle = "#fff"; ctx.lineWidth = 3;
    }
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
  }

  // The S/F tag beyond the line's end farther from the car, on a white label.
  label(line, name) {
    const ctx = this.ctx, s = this.scale;
    const [x1, y1, x2, y2] = this.lineEnds(line);
    const half = Math.max(10, s * 0.6);
    const ends = line.axis === "x" ? [[x1, y1 - half], [x2, y2 + half]] : [[x1 - half, y1], [x2 + half, y2]];
    const [cx, cy] = this.centre(this.doc.car.position);
    const [x, y] = ends.reduce((b, p) => ((p[0] - cx) ** 2 + (p[1] - cy) ** 2 >
      (b[0] - cx) ** 2 + (b[1] - cy) ** 2 ? p : b));
    const text = `${name} ${ARROW[line.dir]}${line.layer === 1 ? " elevated" : ""}`;
    const size = Math.max(11, Math.min(18, Math.round(s * 0.55)));
    ctx.font = `bold ${size}px system-ui, sans-serif`;
    const w = ctx.measureText(text).width + 8, h = size + 6;
    ctx.fillStyle = "#fff"; ctx.strokeStyle = "#111"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.roundRect(x - w / 2, y - h / 2, w, h, 3); ctx.fill(); ctx.stroke();
    ctx.fillStyle = "#111"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    ctx.fillText(text, x, y + 1);
  }

  car() {
    const ctx = this.ctx, d = this.doc, s = this.scale;
    const r = Math.max(3, s * 0.28);
    ctx.setLineDash([]);
    for (const p of d.car.slots) {
      const [cx, cy] = this.centre(p);
      ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.fillStyle = "rgba(255,255,255,0.8)";
      ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    }
    const [cx, cy] = this.centre(d.car.position);
    const [dx, dy] = { "+x": [1, 0], "-x": [-1, 0], "+y": [0, 1], "-y": [0, -1] }[d.car.direction];
    ctx.fillStyle = "#000"; ctx.strokeStyle = "#fff"; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    // a small nose in the facing direction
    ctx.fillStyle = "#fff";
    ctx.beginPath();
    ctx.moveTo(cx + dx * r * 0.85, cy + dy * r * 0.85);
    ctx.lineTo(cx - dy * r * 0.45, cy + dx * r * 0.45);
    ctx.lineTo(cx + dy * r * 0.45, cy - dx * r * 0.45);
    ctx.fill();
  }

  diagnostics() {
    const ctx = this.ctx, s = this.scale;
    for (const m of this.messages) {
      const color = m.level === "error" ? "#d0021b" : "#b35c00";
      ctx.strokeStyle = color; ctx.lineWidth = 3; ctx.setLineDash([5, 3]);
      for (const [x, y] of m.target.cells) {
        ctx.strokeRect(this.ox + x * s - 2, this.oy + y * s - 2, s + 4, s + 4);
      }
      if (m.target.line) {
        const line = this.doc[m.target.line];
        const [x1, y1, x2, y2] = this.lineEnds(line);
        ctx.lineWidth = 10; ctx.globalAlpha = 0.45;
        ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
        ctx.globalAlpha = 1;
      }
      ctx.setLineDash([]);
      const anchor = this.anchorOf(m);
      if (anchor) this.callout(anchor, m.message, color);
    }
  }

  anchorOf(m) {
    const s = this.scale;
    if (m.target.cells.length) {
      const [x, y] = m.target.cells[0];
      return [this.ox + (x + 1) * s + 4, this.oy + y * s];
    }
    if (m.target.line) {
      const [, , x2, y2] = this.lineEnds(this.doc[m.target.line]);
      return [x2 + 6, y2];
    }
    return null;
  }

  // The message beside the cell it is about (wrapped, on a tinted card).
  callout([x, y], text, color) {
    const ctx = this.ctx;
    ctx.font = "12px system-ui, sans-serif";
    const maxW = 280, words = text.split(" "), lines = [];
    let cur = "";
    for (const w of words) {
      const t = cur ? `${cur} ${w}` : w;
      if (ctx.measureText(t).width > maxW && cur) { lines.push(cur); cur = w; } else cur = t;
    }
    if (cur) lines.push(cur);
    const w = Math.max(...lines.map((l) => ctx.measureText(l).width)) + 14, h = lines.length * 15 + 8;
    const cw = this.canvas.width / this.dpr;
    if (x + w > cw - 4) x = Math.max(4, cw - 4 - w);
    ctx.fillStyle = "rgba(255,255,255,0.96)"; ctx.strokeStyle = color; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.roundRect(x, y, w, h, 4); ctx.fill(); ctx.stroke();
    ctx.fillStyle = color; ctx.textAlign = "left"; ctx.textBaseline = "top";
    lines.forEach((l, i) => ctx.fillText(l, x + 7, y + 5 + i * 15));
  }

  tool() {
    const ctx = this.ctx, s = this.scale, p = this.preview;
    if (this.hover && this.doc.inside(...this.hover)) {
      const [x, y] = this.hover;
      ctx.strokeStyle = "rgba(0,0,0,0.7)"; ctx.lineWidth = 1.5;
      ctx.strokeRect(this.ox + x * s, this.oy + y * s, s, s);
    }
    if (!p) return;
    if (p.rect) {
      const [x0, y0, x1, y1] = p.rect;
      ctx.fillStyle = "rgba(255,255,255,0.25)"; ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5;
      ctx.setLineDash([4, 3]);
      ctx.fillRect(this.ox + x0 * s, this.oy + y0 * s, (x1 - x0 + 1) * s, (y1 - y0 + 1) * s);
      ctx.strokeRect(this.ox + x0 * s, this.oy + y0 * s, (x1 - x0 + 1) * s, (y1 - y0 + 1) * s);
      ctx.setLineDash([]);
    }
    for (const [line, finish] of p.lines || []) this.line(line, finish, true);
  }

  // The trajectory segment nearest to screen point (sx, sy), within 8 px.
  pick(sx, sy) {
    const a = this.analysis;
    if (!a || this.analysisOpacity() < 1) return null;  // under a race: not pickable
    let best = null, bestD = 8;
    for (const t of [...a.trajectories].reverse()) {
      if (!this.show[t.name]) continue;
      t.steps.forEach((st, i) => {
        const [x0, y0] = this.centre(st.from), [x1, y1] = this.centre(st.to);
        const dx = x1 - x0, dy = y1 - y0, L = dx * dx + dy * dy;
        const u = L ? Math.max(0, Math.min(1, ((sx - x0) * dx + (sy - y0) * dy) / L)) : 0;
        const dd = Math.hypot(sx - (x0 + u * dx), sy - (y0 + u * dy));
        if (dd < bestD) { bestD = dd; best = { traj: t, step: i }; }
      });
    }
    return best;
  }
}
