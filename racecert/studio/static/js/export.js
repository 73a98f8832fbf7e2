// Export of the current view as a standalone SVG file, and as a PNG drawn from that SVG
// in the browser. "The current view" is what the grid shows now, drawn whole (not the
// part panned into the window): the track as edited, the analysis's layers that are
// switched on (faded or left out under a race, as on screen), the race at the replay's
// step, or the car and its grid slots. The drawing order and colours are the canvas's
// (view.js). The SVG needs nothing else: no scripts, no links, no external fonts; its
// groups have ids (ground, coverage, grid, analysis-ground, deck, analysis-deck, lines,
// car or race, labels) so that it can be edited or checked.

import { CH } from "./model.js";
import { ARROW, COLORS, STYLES } from "./view.js";

const NS = "http://www.w3.org/2000/svg";
const GROUND = { [CH.wall]: COLORS.off, [CH.asphalt]: COLORS.asphalt,
  [CH.shoulder]: COLORS.shoulder, [CH.ramp]: COLORS.ramp };
const DECK = { [CH.deck]: [COLORS.deck, 0.59], [CH.shoulder]: [COLORS.deckShoulder, 0.67] };
const HATCH = "#1b3a80";

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
const num = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

// Pixels per cell: large enough to read, the whole picture at most about 2,400 px wide.
export function cellSize(doc) {
  return Math.max(4, Math.min(24, Math.floor(2400 / Math.max(doc.width, doc.height))));
}

// Horizontal runs of equal cells in row-major order: [x0, x1, y, value], value !== skip.
function runs(doc, grid, skip) {
  const out = [];
  for (let y = 0; y < doc.height; y++) {
    let x = 0;
    while (x < doc.width) {
      const v = grid[y * doc.width + x];
      let e = x;
      while (e + 1 < doc.width && grid[y * doc.width + e + 1] === v) e++;
      if (v !== skip) out.push([x, e, y, v]);
      x = e + 1;
    }
  }
  return out;
}

export function viewSVG(view, title) {
  const d = view.doc, C = cellSize(d), M = 2 * C;
  const W = d.width * C + 2 * M, H = d.height * C + 2 * M;
  const px = (x) => M + x * C, py = (y) => M + y * C;
  const centre = (p) => [px(p[0] + 0.5), py(p[1] + 0.5)];
  const rect = (x0, x1, y, fill, extra = "") =>
    `<rect x="${px(x0)}" y="${py(y)}" width="${(x1 - x0 + 1) * C}" height="${C}" fill="${fill}"${extra}/>`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="${NS}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
      'font-family="DejaVu Sans, Arial, sans-serif">',
    `<title>${esc(title)}</title>`,
    "<desc>Drawn by racecert studio (the view of the page, as an SVG file).</desc>",
    `<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse">` +
      `<path d="M0 8L8 0M-2 2L2 -2M6 10L10 6" stroke="${HATCH}" stroke-opacity="0.55" ` +
      'stroke-width="1.2"/></pattern></defs>',
    `<rect id="background" width="${W}" height="${H}" fill="#f3f4f6"/>`,
    '<g id="ground">', ...runs(d, d.ground, -1).map(([a, b, y, v]) => rect(a, b, y, GROUND[v] || "#ff00ff")),
    "</g>",
  ];
  const a = view.analysis, fade = view.analysisOpacity();
  const faded = fade < 1 ? ` opacity="${fade}"` : "";
  if (a && a.coverage && view.show.red && fade > 0) {
    const cov = new Uint8Array(d.width * d.height);
    for (const [x, y] of a.coverage.cells) if (d.inside(x, y)) cov[y * d.width + x] = 1;
    out.push(`<g id="coverage" opacity="${num(0.3 * fade)}">`,
      ...runs(d, cov, 0).map(([x0, x1, y]) => rect(x0, x1, y, COLORS.red)), "</g>");
  }
  if (C >= 8) {
    const lines = [];
    for (let x = 0; x <= d.width; x++) lines.push(`M${px(x)} ${py(0)}V${py(d.height)}`);
    for (let y = 0; y <= d.height; y++) lines.push(`M${px(0)} ${py(y)}H${px(d.width)}`);
    out.push(`<g id="grid"><path d="${lines.join("")}" stroke="#000" stroke-opacity="0.08" ` +
      'stroke-width="1" fill="none"/></g>');
  }
  const trajectories = (layer) => {
    if (!a || fade <= 0) return;
    const groups = [];
    for (const t of a.trajectories) {
      if (!view.show[t.name]) continue;
      const [wc, dash, dot] = STYLES[t.name];
      const width = Math.max(1.5, wc * C), r = Math.max(1.5, dot * C);
      let path = "", prev = -2;
      t.steps.forEach((st, i) => {
        if (Math.max(st.layers[0], st.layers[1]) !== layer) return;
        const [x0, y0] = centre(t.positions[i]), [x1, y1] = centre(t.positions[i + 1]);
        if (i !== prev + 1) path += `M${num(x0)} ${num(y0)}`;
        path += `L${num(x1)} ${num(y1)}`;
        prev = i;
      });
      const dots = t.positions.filter((p, i) => t.layers[i] === layer).map((p) => {
        const [cx, cy] = centre(p);
        return `<circle cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}"/>`;
      });
      if (!path && !dots.length) continue;
      const g = [`<g class="trajectory" data-name="${t.name}" fill="none" stroke-linecap="round" ` +
        'stroke-linejoin="round">'];
      if (path && layer === 1) g.push(`<path d="${path}" stroke="#fff" stroke-width="${num(width + 3)}"/>`);
      const dashes = dash ? ` stroke-dasharray="${dash.map((v) => num(Math.max(2, v * C))).join(" ")}"` : "";
      if (path) g.push(`<path d="${path}" stroke="${COLORS[t.name]}" stroke-width="${num(width)}"${dashes}/>`);
      g.push(`<g fill="${COLORS[t.name]}" stroke="#fff" stroke-width="0.8">`, ...dots, "</g></g>");
      groups.push(...g);
    }
    out.push(`<g id="analysis-${layer ? "deck" : "ground"}"${faded}>`, ...groups, "</g>");
  };
  trajectories(0);
  out.push('<g id="deck">');
  for (const [x0, x1, y, v] of runs(d, d.elev, CH.off)) {
    if (!DECK[v]) continue;
    const [fill, opacity] = DECK[v];
    out.push(rect(x0, x1, y, fill, ` fill-opacity="${opacity}"`), rect(x0, x1, y, "url(#hatch)"));
  }
  const deck = (x, y) => d.inside(x, y) && d.elev[y * d.width + x] !== CH.off && d.elev[y * d.width + x] !== CH.ramp;
  let edges = "";
  for (let y = 0; y < d.height; y++) {
    for (let x = 0; x < d.width; x++) {
      if (!deck(x, y)) continue;
      if (!deck(x - 1, y)) edges += `M${px(x)} ${py(y)}v${C}`;
      if (!deck(x + 1, y)) edges += `M${px(x + 1)} ${py(y)}v${C}`;
      if (!deck(x, y - 1)) edges += `M${px(x)} ${py(y)}h${C}`;
      if (!deck(x, y + 1)) edges += `M${px(x)} ${py(y + 1)}h${C}`;
    }
  }
  if (edges) out.push(`<path d="${edges}" stroke="${HATCH}" stroke-opacity="0.9" fill="none"/>`);
  out.push("</g>");
  trajectories(1);
  const ends = (l) => (l.axis === "x"
    ? [px(l.k + 1), py(l.span[0]), px(l.k + 1), py(l.span[1] + 1)]
    : [px(l.span[0]), py(l.k + 1), px(l.span[1] + 1), py(l.k + 1)]);
  const seg = (l, stroke, width, extra = "") => {
    const [x1, y1, x2, y2] = ends(l);
    return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${stroke}" stroke-width="${width}"${extra}/>`;
  };
  const q = Math.max(3, C / 4);
  out.push('<g id="lines">', `<g id="start-line">${seg(d.start, "#111", 6)}${seg(d.start, "#fff", 3)}</g>`,
    `<g id="finish-line">${seg(d.finish, "#fff", 6)}${seg(d.finish, "#111", 5, ` stroke-dasharray="${num(q)} ${num(q)}"`)}</g>`,
    "</g>");
  if (view.race) out.push(...raceLayer(view.race, C, centre));
  else out.push(...carLayer(d, C, centre));
  out.push('<g id="labels">', label(d, d.start, "S", C, ends, centre), label(d, d.finish, "F", C, ends, centre), "</g>");
  out.push("</svg>", "");
  return { svg: out.join("\n"), width: W, height: H };
}

function carLayer(d, C, centre) {
  const r = Math.max(3, C * 0.28);
  const out = ['<g id="car">'];
  for (const p of d.car.slots) {
    const [cx, cy] = centre(p);
    out.push(`<circle class="slot" cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}" fill="#fff" ` +
      'fill-opacity="0.8" stroke="#000" stroke-width="1.5"/>');
  }
  const [cx, cy] = centre(d.car.position);
  const [dx, dy] = { "+x": [1, 0], "-x": [-1, 0], "+y": [0, 1], "-y": [0, -1] }[d.car.direction];
  const pts = [[cx + dx * r * 0.85, cy + dy * r * 0.85], [cx - dy * r * 0.45, cy + dx * r * 0.45],
    [cx + dy * r * 0.45, cy - dx * r * 0.45]].map(([x, y]) => `${num(x)},${num(y)}`).join(" ");
  out.push(`<circle class="car" cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}" fill="#000" stroke="#fff" ` +
    `stroke-width="1.5"/><polygon points="${pts}" fill="#fff"/>`, "</g>");
  return out;
}

function raceLayer(r, C, centre) {
  const out = ['<g id="race" stroke-linecap="round">', '<g id="trails">'];
  for (let i = 0; i < r.k; i++) {
    const st = r.steps[i];
    const [x0, y0] = centre(st.before), [x1, y1] = centre(st.after);
    out.push(`<line x1="${num(x0)}" y1="${num(y0)}" x2="${num(x1)}" y2="${num(y1)}" stroke="${r.colors[st.car]}" ` +
      `stroke-width="${num(Math.max(1.5, C * 0.12))}"${i === r.k - 1 ? "" : ' stroke-opacity="0.7"'}/>`);
  }
  out.push("</g>");
  const cur = r.steps[r.k - 1], q = C * 0.35;
  for (const e of cur ? cur.events : []) {
    if (!e.cell) continue;
    const [cx, cy] = centre(e.cell);
    out.push(`<path class="blocked" d="M${num(cx - q)} ${num(cy - q)}L${num(cx + q)} ${num(cy + q)}` +
      `M${num(cx - q)} ${num(cy + q)}L${num(cx + q)} ${num(cy - q)}" stroke="${r.colors[cur.car]}" stroke-width="3"/>`);
  }
  const rad = Math.max(4, C * 0.32);
  r.frame.forEach((p, i) => {
    const [cx, cy] = centre(p);
    const gone = (r.gone || []).includes(i) ? ' opacity="0.35"' : "";
    out.push(`<g class="race-car" data-car="${i}"${gone}><circle cx="${num(cx)}" cy="${num(cy)}" r="${num(rad)}" ` +
      `fill="${r.colors[i]}" stroke="#fff" stroke-width="2"/><text x="${num(cx)}" y="${num(cy)}" ` +
      `font-size="${num(rad * 1.1)}" font-weight="bold" fill="#fff" text-anchor="middle" ` +
      `dominant-baseline="central">${i}</text></g>`);
  });
  out.push("</g>");
  return out;
}

// The S/F tag beyond the line's end farther from the car (as the canvas draws it).
function label(d, line, name, C, ends, centre) {
  const [x1, y1, x2, y2] = ends(line);
  const half = Math.max(10, C * 0.6);
  const cand = line.axis === "x" ? [[x1, y1 - half], [x2, y2 + half]] : [[x1 - half, y1], [x2 + half, y2]];
  const [cx, cy] = centre(d.car.position);
  const [x, y] = cand.reduce((b, p) => ((p[0] - cx) ** 2 + (p[1] - cy) ** 2 >
    (b[0] - cx) ** 2 + (b[1] - cy) ** 2 ? p : b));
  const text = `${name} ${ARROW[line.dir]}${line.layer === 1 ? " elevated" : ""}`;
  const size = Math.max(11, Math.min(18, Math.round(C * 0.55)));
  const w = text.length * size * 0.62 + 8, h = size + 6;
  return `<g class="label"><rect x="${num(x - w / 2)}" y="${num(y - h / 2)}" width="${num(w)}" height="${h}" ` +
    `rx="3" fill="#fff" stroke="#111"/><text x="${num(x)}" y="${num(y)}" font-size="${size}" ` +
    `font-weight="bold" fill="#111" text-anchor="middle" dominant-baseline="central">${esc(text)}</text></g>`;
}

// The SVG drawn on a canvas of its size, as a PNG blob (no server round trip).
export async function svgToPNG({ svg, width, height }) {
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = width; canvas.height = height;
    canvas.getContext("2d").drawImage(img, 0, 0, width, height);
    return await new Promise((resolve, reject) => canvas.toBlob(
      (b) => (b ? resolve(b) : reject(new Error("the browser could not encode the PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}

// Hand `blob` to the browser as a download named `name`.
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url; link.download = name;
  document.body.append(link); link.click(); link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
