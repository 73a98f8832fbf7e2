"""The race as one self-contained HTML page: play, pause, step and scrub through it.

Everything is inline (the track as SVG, the race as JSON, a small script, the
styles); the page loads nothing from the network. Each step is one car's turn:
the cars stand where they stood after it over the track and its cell grid, each
car's current lap is drawn strong and its earlier laps faded (or hidden: the
"earlier laps" choice), crosses mark blocked moves, finished cars are drawn faded
(they have left the track), and below are the events so far and the standings as
they stand at that step: the cars that have finished, in finishing order, the
others as racing; the final table after the last step (`standings_at`).
"""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import escape

from racecert.analysis.svg import CELL, MIN_WIDTH, TOP, line_markers, track_elements
from racecert.race.engine import RaceResult
from racecert.race.replay import (
    LIVE_HEADER,
    RACING,
    car_color,
    finish_steps,
    grid_lines,
    timeline,
)
from racecert.race.standings import HEADER, standings_rows, standings_text

STYLE = """
body { font-family: sans-serif; margin: 16px; color: #111; }
#controls { margin: 8px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#controls button { min-width: 2.6em; }
#slider { width: 320px; }
#now { font-family: monospace; margin: 6px 0; min-height: 1.3em; }
#legend { list-style: none; padding: 0; margin: 6px 0; display: flex; gap: 14px;
          flex-wrap: wrap; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin-top: 10px; }
th, td { border: 1px solid #bbb; padding: 2px 8px; text-align: left; }
tr.racing td { color: #777; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 5px;
          border: 1px solid #000; vertical-align: middle; }
#log { font-family: monospace; font-size: 12px; max-height: 16em; overflow-y: auto;
       border: 1px solid #ddd; padding: 4px 8px; white-space: pre-wrap; }
"""

SCRIPT = """
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("race-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const steps = data.steps;
  const center = (p) => [p[0] * data.cell + data.cell / 2,
                         data.top + p[1] * data.cell + data.cell / 2];
  const layer = (id) => document.getElementById(id);
  const make = (name, attrs, parent) => {
    const el = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    parent.appendChild(el);
    return el;
  };
  const trails = steps.map((s) => {
    if (s.before[0] === s.after[0] && s.before[1] === s.after[1]) return null;
    const [x1, y1] = center(s.before), [x2, y2] = center(s.after);
    return make("line", {x1, y1, x2, y2, stroke: data.cars[s.car].color,
                         "stroke-linecap": "round"}, layer("trails"));
  });
  const marks = [];
  steps.forEach((s, k) => s.events.forEach((e) => {
    if (e.kind === "replan" || !e.cell) return;
    const [cx, cy] = center(e.cell), r = data.cell * 0.35;
    const el = make("path", {d: `M${cx - r},${cy - r} L${cx + r},${cy + r} ` +
                                `M${cx - r},${cy + r} L${cx + r},${cy - r}`,
                             stroke: data.cars[s.car].color, "stroke-width": 3}, layer("marks"));
    marks.push([k, el]);
  }));
  const cars = data.cars.map((c, i) => {
    const el = make("circle", {r: data.cell * 0.38, fill: c.color, stroke: "#000",
                               "stroke-width": 1.2}, layer("cars"));
    make("title", {}, el).textContent = `car ${i} (${c.driver})`;
    return el;
  });
  const slider = layer("slider");
  slider.max = steps.length;
  let k = 0, timer = null;
  // a trail or mark of step j: shown strong in its car's current lap, else per "earlier"
  function showStep(el, j, lap, width) {
    const s = steps[j];
    if (j >= k) { el.style.display = "none"; return; }
    const current = s.lap === lap[s.car];
    el.style.display = current || layer("earlier").value !== "hidden" ? "" : "none";
    el.setAttribute("opacity", current ? 1 : 0.22);
    if (width) el.setAttribute("stroke-width", current ? width : width * 0.6);
  }
  function cell(row, text, tag) {
    const td = document.createElement(tag || "td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }
  function standings() {
    const final = k >= steps.length;
    const header = final ? data.final.header : data.live_header;
    let rows;
    if (final) rows = data.final.rows.map((r) => ({car: Number(r[1]), cells: r,
                                                    state: "final"}));
    else {
      const done = data.finishers.filter((f) => f.step < k);
      const seen = new Set(done.map((f) => f.car));
      rows = done.map((f, n) => ({car: f.car, state: "finished", cells:
        [String(n + 1), String(f.car), data.cars[f.car].driver, String(f.moves)]}));
      data.cars.forEach((c, i) => { if (!seen.has(i)) rows.push({car: i, state: "racing",
        cells: [data.racing, String(i), c.driver, ""]}); });
    }
    const head = document.createElement("tr");
    ["", ...header].forEach((h) => cell(head, h, "th"));
    layer("standings-head").replaceChildren(head);
    layer("standings-body").replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      tr.className = r.state;
      tr.setAttribute("data-car", r.car);
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = data.cars[r.car].color;
      cell(tr, "").appendChild(sw);
      r.cells.forEach((c) => cell(tr, c));
      return tr;
    }));
    layer("standings-title").textContent = final ? "Final standings" :
      `Standings after step ${k} of ${steps.length}`;
  }
  function render() {
    const pos = data.cars.map((c) => c.start), lap = data.cars.map(() => 0);
    for (let j = 0; j < k; j++) {
      pos[steps[j].car] = steps[j].after;
      lap[steps[j].car] = steps[j].lap;
    }
    cars.forEach((el, i) => {
      const [cx, cy] = center(pos[i]);
      el.setAttribute("cx", cx);
      el.setAttribute("cy", cy);
      const gone = data.cars[i].finish_step !== null && data.cars[i].finish_step < k;
      el.setAttribute("opacity", gone ? 0.3 : 1);
    });
    trails.forEach((el, j) => { if (el) showStep(el, j, lap, 2.6); });
    marks.forEach(([j, el]) => showStep(el, j, lap, 0));
    slider.value = k;
    const s = steps[k - 1];
    layer("now").textContent = k === 0 ? `start (step 0 of ${steps.length})` :
      `step ${k} of ${steps.length}: turn ${s.turn}, car ${s.car} ` +
      `(${data.cars[s.car].driver}) lap ${s.lap + 1} of ${data.laps} ` +
      `${s.before[0]},${s.before[1]} -> ${s.after[0]},${s.after[1]}`;
    const lines = [];
    for (let j = 0; j < k; j++) steps[j].events.forEach((e) => lines.push(
      `turn ${steps[j].turn} car ${steps[j].car}: ${e.kind}: ${e.detail}`));
    layer("log").textContent = lines.slice(-40).join("\\n") || "(no events yet)";
    standings();
    document.body.setAttribute("data-step", k);
  }
  function go(n) { k = Math.max(0, Math.min(steps.length, n)); render(); }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    layer("play").textContent = "play";
  }
  function play() {
    if (timer) { stop(); return; }
    if (k >= steps.length) k = 0;
    layer("play").textContent = "pause";
    timer = setInterval(() => { if (k >= steps.length) stop(); else go(k + 1); },
                        Number(layer("speed").value));
  }
  layer("play").onclick = play;
  layer("first").onclick = () => { stop(); go(0); };
  layer("prev").onclick = () => { stop(); go(k - 1); };
  layer("next").onclick = () => { stop(); go(k + 1); };
  layer("last").onclick = () => { stop(); go(steps.length); };
  slider.oninput = () => { stop(); go(Number(slider.value)); };
  layer("speed").onchange = () => { if (timer) { stop(); play(); } };
  layer("earlier").onchange = () => render();
  go(0);
})();
"""


def replay_data(result: RaceResult) -> dict[str, Any]:
    """The data the page's script replays: cars, steps (with each move's lap), layout,
    who finishes on which step, and the final standings (shown after the last step)."""
    steps = timeline(result)
    finish = finish_steps(result, steps)
    cars = [{"driver": c.driver, "color": car_color(i), "start": list(c.trajectory[0]),
             "finish_step": finish.get(i)} for i, c in enumerate(result.cars)]
    finishers = [{"car": car, "step": finish[car], "moves": result.cars[car].moves}
                 for car in sorted(finish, key=finish.__getitem__)]
    return {
        "cell": CELL, "top": TOP, "laps": result.laps, "cars": cars,
        "steps": [{"car": s.car, "turn": s.turn, "lap": s.lap, "before": list(s.before),
                   "after": list(s.after), "events": [e.to_json() for e in s.events]}
                  for s in steps],
        "finishers": finishers, "racing": RACING, "live_header": list(LIVE_HEADER),
        "final": {"header": list(HEADER), "rows": [list(r) for r in standings_rows(result)]},
    }


def _json_for_script(data: dict[str, Any]) -> str:
    """JSON safe inside a <script> element ("<" never appears literally)."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


def _legend(result: RaceResult) -> str:
    """One swatch per car: its colour, index and driver."""
    items = "".join(f'<li data-car="{i}"><span class="swatch" style="background:'
                    f'{car_color(i)}"></span> car {i} {escape(c.driver)}</li>'
                    for i, c in enumerate(result.cars))
    return f'<ul id="legend">{items}</ul>'


def render_replay_html(result: RaceResult) -> str:
    """The self-contained HTML page of `result`."""
    t = result.track
    w = max(t.width * CELL, MIN_WIDTH)
    h = TOP + t.height * CELL + 8
    title = f"Race: {t.name} — {result.laps} lap(s), seed {result.seed}"
    summary = standings_text(result).splitlines()[0]
    svg = "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        "<defs>", *line_markers(), "</defs>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
        *track_elements(t), *grid_lines(t),
        '<g id="trails"></g>', '<g id="marks"></g>', '<g id="cars"></g>',
        "</svg>"])
    return "\n".join([
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h2>{escape(title)}</h2>",
        f"<p>{escape(summary)}. One step is one car's turn; each car's current lap is "
        "drawn strong, its earlier laps faded; crosses mark blocked moves; faded cars "
        "have finished.</p>",
        '<div id="controls"><button id="first">|&lt;</button><button id="prev">&lt;</button>'
        '<button id="play">play</button><button id="next">&gt;</button>'
        '<button id="last">&gt;|</button><input id="slider" type="range" min="0" value="0">'
        '<label>speed <select id="speed"><option value="600">slow</option>'
        '<option value="250" selected>normal</option><option value="80">fast</option>'
        '</select></label><label>earlier laps <select id="earlier">'
        '<option value="faded" selected>faded</option><option value="hidden">hidden</option>'
        "</select></label></div>",
        '<div id="now"></div>',
        _legend(result),
        svg,
        '<h3 id="standings-title">Standings</h3>',
        '<table id="standings"><thead id="standings-head"></thead>'
        '<tbody id="standings-body"></tbody></table>',
        "<h3>Events so far</h3>",
        '<div id="log"></div>',
        f'<script type="application/json" id="race-data">{_json_for_script(replay_data(result))}'
        "</script>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]) + "\n"
