// Runs the script of a racecert HTML replay against a minimal stand-in for the DOM and
// prints what the page shows after stepping: node replay_harness.js PAGE.html STEP...
// Each STEP is a button id (first, prev, next, last) or a number (the slider).
"use strict";
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const data = html.match(/<script type="application\/json" id="race-data">([\s\S]*?)<\/script>/)[1];
const code = html.match(/<script>([\s\S]*?)<\/script>/)[1];
class El {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.style = {};
                     this.textContent = ""; this.value = ""; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  appendChild(c) { this.children.push(c); return c; }
}
const byId = {};
const get = (id) => byId[id] || (byId[id] = new El("#" + id));
get("race-data").textContent = data;
global.document = { getElementById: get, createElementNS: (ns, tag) => new El(tag) };
global.setInterval = () => 1;
global.clearInterval = () => {};
new Function(code)();
const frames = [];
for (const step of process.argv.slice(3)) {
  if (/^\d+$/.test(step)) { get("slider").value = step; get("slider").oninput(); }
  else get(step).onclick();
  frames.push({
    step,
    cars: get("cars").children.map((c) => [Number(c.attrs.cx), Number(c.attrs.cy),
                                           Number(c.attrs.opacity)]),
    trails: get("trails").children.filter((t) => t.style.display !== "none").length,
    marks: get("marks").children.filter((t) => t.style.display !== "none").length,
    now: get("now").textContent,
  });
}
console.log(JSON.stringify(frames));
