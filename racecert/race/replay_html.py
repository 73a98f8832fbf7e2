"""The race as one self-contained HTML page: play, pause, step and scrub through it.

Everything is inline (the track as SVG, the race as JSON, a small script, the
styles); the page loads nothing from the network. Each step is one car's turn:
the cars stand where they stood after it, the trails grow, crosses mark blocked
moves, finished cars are drawn faded (they have left the track), and the events of
the step and the final standings are listed below.
"""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import escape

from racecert.analysis.svg import CELL, MIN_WIDTH, TOP, line_markers, track_elements
from racecert.race.engine import RaceResult
from racecert.race.replay import car_color, timeline
from racecert.race.standings import HEADER, standings_rows, standings_text

STYLE = """
body { font-family: sans-serif; margin: 16px; color: #111; }
#controls { margin: 8px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#controls button { min-width: 2.6em; }
#slider { width: 320px; }
#now { font-family: monospace; margin: 6px 0; min-height: 1.3em; }
table { border-collapse: collapse; font-size: 13px; margin-top: 10px; }
th, td { border: 1px solid #bbb; padding: 2px 8px; text-align: left; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 5px; }
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
                         "stroke-width": 2.4, "stroke-linecap": "round"}, layer("trails"));
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
  function render() {
    const pos = data.cars.map((c) => c.start);
    for (let j = 0; j < k; j++) pos[steps[j].car] = steps[j].after;
    cars.forEach((el, i) => {
      const [cx, cy] = center(pos[i]);
      el.setAttribute("cx", cx);
      el.setAttribute("cy", cy);
      const gone = data.cars[i].finish_step !== null && data.cars[i].finish_step < k;
      el.setAttribute("opacity", gone ? 0.3 : 1);
    });
    trails.forEach((el, j) => { if (el) el.style.display = j < k ? "" : "none"; });
    marks.forEach(([j, el]) => { el.style.display = j < k ? "" : "none"; });
    slider.value = k;
    const s = steps[k - 1];
    layer("now").textContent = k === 0 ? `start (step 0 of ${steps.length})` :
      `step ${k} of ${steps.length}: turn ${s.turn}, car ${s.car} ` +
      `(${data.cars[s.car].driver}) ${s.before[0]},${s.before[1]} -> ${s.after[0]},${s.after[1]}`;
    const lines = [];
    for (let j = 0; j < k; j++) steps[j].events.forEach((e) => lines.push(
      `turn ${steps[j].turn} car ${steps[j].car}: ${e.kind}: ${e.detail}`));
    layer("log").textContent = lines.slice(-40).join("\\n") || "(no events yet)";
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
  go(0);
})();
"""


def replay_data(result: RaceResult) -> dict[str, Any]:
    """The data the page's script replays: cars, steps, layout."""
    steps = timeline(result)
    cars = []
    for i, c in enumerate(result.cars):
        finish = None
        if c.finished:
            finish = next(k for k, s in enumerate(steps) if s.car == i and s.turn == c.finish_turn)
        cars.append({"driver": c.driver, "color": car_color(i), "start": list(c.trajectory[0]),
                     "finish_step": finish})
    return {
        "cell": CELL, "top": TOP, "cars": cars,
        "steps": [{"car": s.car, "turn": s.turn, "before": list(s.before),
                   "after": list(s.after), "events": [e.to_json() for e in s.events]}
                  for s in steps],
    }


def _json_for_script(data: dict[str, Any]) -> str:
    """JSON safe inside a <script> element ("<" never appears literally)."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


def _standings_table(result: RaceResult) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in ("", *HEADER))
    body = []
    for r in standings_rows(result):
        swatch = f'<span class="swatch" style="background:{car_color(int(r[1]))}"></span>'
        body.append("<tr><td>" + swatch + "</td>"
                    + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


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
        *track_elements(t),
        '<g id="trails"></g>', '<g id="marks"></g>', '<g id="cars"></g>',
        "</svg>"])
    return "\n".join([
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h2>{escape(title)}</h2>",
        f"<p>{escape(summary)}. One step is one car's turn; crosses mark blocked moves; "
        "faded cars have finished.</p>",
        '<div id="controls"><button id="first">|&lt;</button><button id="prev">&lt;</button>'
        '<button id="play">play</button><button id="next">&gt;</button>'
        '<button id="last">&gt;|</button><input id="slider" type="range" min="0" value="0">'
        '<label>speed <select id="speed"><option value="600">slow</option>'
        '<option value="250" selected>normal</option><option value="80">fast</option>'
        "</select></label></div>",
        '<div id="now"></div>',
        svg,
        "<h3>Standings</h3>",
        _standings_table(result),
        "<h3>Events so far</h3>",
        '<div id="log"></div>',
        f'<script type="application/json" id="race-data">{_json_for_script(replay_data(result))}'
        "</script>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]) + "\n"
