// Runs the script of a racecert HTML replay against a minimal stand-in for the DOM and
// prints what the page shows after stepping: node replay_harness.js PAGE.html STEP...
// Each STEP is a button id (first, prev, next, last), a number (the slider), or
// "hidden" / "faded" (the "earlier laps" choice).
"use strict";
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const data = html.match(/<script type="application\/json" id="race-data">([\s\S]*?)<\/script>/)[1];
const code = html.match(/<script>([\s\S]*?)<\/script>/)[1];
class El {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.style = {};
                     this.textContent = ""; this.value = ""; this.className = ""; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  appendChild(c) { this.children.push(c); return c; }
  replaceChildren(...cs) { this.children = cs; }
}
const byId = {};
const get = (id) => byId[id] || (byId[id] = new El("#" + id));
get("race-data").textContent = data;
get("earlier").value = "faded";
global.document = { getElementById: get, createElementNS: (ns, tag) => new El(tag),
                    createElement: (tag) => new El(tag), body: new El("body") };
global.setInterval = () => 1;
global.clearInterval = () => {};
new Function(code)();
const shown = (t) => t.style.display !== "none";
const frames = [];
for (const step of process.argv.slice(3)) {
  if (/^\d+$/.test(step)) { get("slider").value = step; get("slider").oninput(); }
  else if (step === "hidden" || step === "faded") {
    get("earlier").value = step; get("earlier").onchange();
  } else get(step).onclick();
  frames.push({
    step,
    cars: get("cars").children.map((c) => [Number(c.attrs.cx), Number(c.attrs.cy),
                                           Number(c.attrs.opacity)]),
    trails: get("trails").children.filter(shown).length,
    strong: get("trails").children.filter((t) => shown(t) && t.attrs.opacity === "1").length,
    marks: get("marks").children.filter(shown).length,
    now: get("now").textContent,
    header: get("standings-head").children.flatMap((r) => r.children.map((c) => c.textContent)),
    rows: get("standings-body").children.map((r) => ({
      state: r.className, car: Number(r.attrs["data-car"]),
      cells: r.children.slice(1).map((c) => c.textContent)})),
  });
}
console.log(JSON.stringify(frames));
