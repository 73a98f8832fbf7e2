// The track document the page edits, painting rules, and undo/redo.
//
// Grids are byte arrays of the track format's characters (docs/track-format.md):
// ground '#', '.', ':', '/'; elevated ' ' (off), '=', ':', '/'. A ramp '/' is always
// in both grids at once; painting keeps that true. toJSON() gives the document the
// server turns into TOML (racecert/studio/document.py).

const C = (ch) => ch.charCodeAt(0);
export const CH = {
  wall: C("#"), asphalt: C("."), shoulder: C(":"), ramp: C("/"),
  off: C(" "), deck: C("="),
};

// Each surface: how it changes a cell's (ground, elevated) characters.
export const SURFACES = [
  { id: "asphalt", label: "Asphalt", key: "1", tip: "ground road: a move may end here",
    paint: (g, e) => [CH.asphalt, e === CH.ramp ? CH.off : e] },
  { id: "shoulder", label: "Shoulder", key: "2", tip: "passable, but a move may not end here",
    paint: (g, e) => [CH.shoulder, e === CH.ramp ? CH.off : e] },
  { id: "wall", label: "Wall", key: "3", tip: "off-track on both levels",
    paint: () => [CH.wall, CH.off] },
  { id: "elevated", label: "Elevated", key: "4",
    tip: "a bridge deck: the ground below is kept (a road under it is a tunnel)",
    paint: (g) => [g === CH.ramp ? CH.asphalt : g, CH.deck] },
  { id: "eshoulder", label: "Elev. shoulder", key: "5", tip: "shoulder on the bridge deck",
    paint: (g) => [g === CH.ramp ? CH.asphalt : g, CH.shoulder] },
  { id: "ramp", label: "Ramp", key: "6", tip: "where a car changes level (both grids)",
    paint: () => [CH.ramp, CH.ramp] },
  { id: "noelev", label: "Clear elevated", key: "7", tip: "clear the elevated level only",
    paint: (g) => [g === CH.ramp ? CH.asphalt : g, CH.off] },
];

export const DIRS = { "+x": [1, 0], "-x": [-1, 0], "+y": [0, 1], "-y": [0, -1] };

function clone(v) { return JSON.parse(JSON.stringify(v)); }

export class TrackDoc {
  constructor(fields) { Object.assign(this, fields); }

  static blank(width, height) {
    const n = width * height;
    const cy = Math.floor(height / 2);
    return new TrackDoc({
      name: "New track", kind: null, description: "", width, height,
      ground: new Uint8Array(n).fill(CH.wall), elev: new Uint8Array(n).fill(CH.off),
      car: { position: [2, cy], direction: "+x", layer: 0, slots: [] },
      start: { axis: "x", k: 2, span: [cy, cy], dir: "+x", layer: 0 },
      finish: { axis: "x", k: Math.max(4, width - 4), span: [cy, cy], dir: "+x", layer: 0 },
      opening: null,
    });
  }

  static fromJSON(d) {
    const height = d.ground.length;
    const width = height ? d.ground[0].length : 0;
    const ground = new Uint8Array(width * height).fill(CH.wall);
    const elev = new Uint8Array(width * height).fill(CH.off);
    d.ground.forEach((row, y) => {
      for (let x = 0; x < Math.min(width, row.length); x++) ground[y * width + x] = row.charCodeAt(x);
    });
    (d.elevated || []).forEach((row, y) => {
      if (y >= height) return;
      for (let x = 0; x < Math.min(width, row.length); x++) {
        const c = row.charCodeAt(x);
        elev[y * width + x] = c === CH.wall ? CH.off : c;
      }
    });
    return new TrackDoc({
      name: d.name, kind: d.kind, description: d.description || "", width, height, ground, elev,
      car: clone(d.car), start: clone(d.start), finish: clone(d.finish),
      opening: d.opening ? clone(d.opening) : null,
    });
  }

  // The document for the server: elevated rows without trailing spaces, no trailing
  // empty rows, null when nothing is elevated.
  toJSON() {
    const rows = (arr, trim) => {
      const out = [];
      for (let y = 0; y < this.height; y++) {
        let s = String.fromCharCode(...arr.subarray(y * this.width, (y + 1) * this.width));
        if (trim) s = s.replace(/ +$/, "");
        out.push(s);
      }
      return out;
    };
    const elevated = rows(this.elev, true);
    while (elevated.length && elevated[elevated.length - 1] === "") elevated.pop();
    return {
      name: this.name, kind: this.kind, description: this.description,
      ground: rows(this.ground, false), elevated: elevated.length ? elevated : null,
      car: clone(this.car), start: clone(this.start), finish: clone(this.finish),
      opening: this.opening ? clone(this.opening) : null,
    };
  }

  meta() {
    return clone({ name: this.name, kind: this.kind, description: this.description,
      car: this.car, start: this.start, finish: this.finish, opening: this.opening });
  }

  setMeta(m) { Object.assign(this, clone(m)); }

  inside(x, y) { return x >= 0 && y >= 0 && x < this.width && y < this.height; }

  // A move may pass through (x, y) on `layer` (the track format's "drivable").
  drivable(layer, x, y) {
    if (!this.inside(x, y)) return false;
    const i = y * this.width + x;
    return layer === 0 ? this.ground[i] !== CH.wall : this.elev[i] !== CH.off;
  }

  hasElevated() { return this.elev.some((c) => c !== CH.off); }
}

// The line placed by clicking cell (cx, cy): on the cell's edge in direction `dir`
// (the clicked cell is the last one before the crossing), spanning the road across,
// on `layer`, until a cell beside either end is off-track: a cut, as the format wants.
export function autoLine(doc, cx, cy, dir, layer) {
  const axis = dir[1];
  const plus = dir[0] === "+";
  if (axis === "x") {
    const k = plus ? cx : cx - 1;
    const open = (y) => doc.drivable(layer, k, y) && doc.drivable(layer, k + 1, y);
    let lo = cy, hi = cy;
    if (open(cy)) {
      while (open(lo - 1)) lo--;
      while (open(hi + 1)) hi++;
    }
    return { axis: "x", k, span: [lo, hi], dir, layer };
  }
  const k = plus ? cy : cy - 1;
  const open = (x) => doc.drivable(layer, x, k) && doc.drivable(layer, x, k + 1);
  let lo = cx, hi = cx;
  if (open(cx)) {
    while (open(lo - 1)) lo--;
    while (open(hi + 1)) hi++;
  }
  return { axis: "y", k, span: [lo, hi], dir, layer };
}

// Undo/redo of transactions: cell changes (index -> old and new characters), the
// document's other fields before and after, and whole grids when the size changed.
export class History {
  constructor(doc, onChange) {
    this.doc = doc; this.onChange = onChange;
    this.done = []; this.undone = []; this.tx = null;
  }

  reset(doc) { this.doc = doc; this.done = []; this.undone = []; this.tx = null; }

  begin(label) {
    if (this.tx) this.commit();
    this.tx = { label, cells: new Map(), metaBefore: this.doc.meta(), grids: null };
  }

  paint(x, y, surface) {
    const d = this.doc;
    if (!d.inside(x, y)) return false;
    const i = y * d.width + x;
    const [g, e] = surface.paint(d.ground[i], d.elev[i]);
    if (g === d.ground[i] && e === d.elev[i]) return false;
    if (!this.tx.cells.has(i)) this.tx.cells.set(i, [d.ground[i], d.elev[i]]);
    d.ground[i] = g; d.elev[i] = e;
    return true;
  }

  resize(width, height) {
    const d = this.doc;
    const before = { width: d.width, height: d.height, ground: d.ground, elev: d.elev };
    const ground = new Uint8Array(width * height).fill(CH.wall);
    const elev = new Uint8Array(width * height).fill(CH.off);
    for (let y = 0; y < Math.min(height, d.height); y++) {
      for (let x = 0; x < Math.min(width, d.width); x++) {
        ground[y * width + x] = d.ground[y * d.width + x];
        elev[y * width + x] = d.elev[y * d.width + x];
      }
    }
    Object.assign(d, { width, height, ground, elev });
    this.tx.grids = { before, after: { width, height, ground, elev } };
  }

  commit() {
    const tx = this.tx;
    this.tx = null;
    if (!tx) return false;
    const d = this.doc;
    tx.metaAfter = d.meta();
    const cells = [];
    for (const [i, [g0, e0]] of tx.cells) {
      if (g0 !== d.ground[i] || e0 !== d.elev[i]) cells.push([i, g0, e0, d.ground[i], d.elev[i]]);
    }
    tx.cells = cells;
    const metaSame = JSON.stringify(tx.metaBefore) === JSON.stringify(tx.metaAfter);
    if (!cells.length && metaSame && !tx.grids) return false;
    this.done.push(tx);
    if (this.done.length > 500) this.done.shift();
    this.undone = [];
    this.onChange(tx, "do");
    return true;
  }

  _apply(tx, forward) {
    const d = this.doc;
    if (tx.grids) Object.assign(d, forward ? tx.grids.after : tx.grids.before);
    for (const [i, g0, e0, g1, e1] of tx.cells) {
      d.ground[i] = forward ? g1 : g0; d.elev[i] = forward ? e1 : e0;
    }
    d.setMeta(forward ? tx.metaAfter : tx.metaBefore);
  }

  undo() {
    if (this.tx) this.commit();
    const tx = this.done.pop();
    if (!tx) return null;
    this._apply(tx, false);
    this.undone.push(tx);
    this.onChange(tx, "undo");
    return tx;
  }

  redo() {
    const tx = this.undone.pop();
    if (!tx) return null;
    this._apply(tx, true);
    this.done.push(tx);
    this.onChange(tx, "redo");
    return tx;
  }
}
