// The Race panel (shown when the server has the race package): built-in drivers, laps
// and a seed; then a step-by-step replay of the race on the grid, one car-turn a step.
// The race is a layer of its own: while it is shown the analysis under it is faded,
// hidden or shown (a menu), and the cars take the replay page's colours, which the
// server sends (racecert.race.replay.CAR_COLORS: none is yellow, green, blue or red).
// The standings are revealed as cars finish, as the replay page of `racecert race` does.

import { $, el } from "./dom.js";
import { standingsAt } from "./standings.js";

export class RacePanel {
  constructor(info, view, start, onChange = () => {}) {
    this.info = info; this.view = view; this.start = start; this.onChange = onChange;
    this.result = null; this.k = 0; this.timer = null;
    this.drivers = info.drivers.includes("alonso") && info.drivers.includes("amateur")
      ? ["alonso", "amateur"] : [info.drivers[0]];
    this.build();
  }

  build() {
    const panel = $("race-panel");
    panel.hidden = false;
    this.cars = el("div", { class: "race-cars" });
    this.laps = el("input", { type: "number", min: "1", max: String(this.info.max_laps), value: "1", class: "num", id: "race-laps" });
    this.seed = el("input", { type: "number", min: "0", value: "0", class: "num", id: "race-seed" });
    const add = el("button", { type: "button", text: "+ car", title: "add a car (the next grid slot)" });
    add.addEventListener("click", () => {
      if (this.drivers.length < this.info.max_cars) { this.drivers.push(this.info.drivers[0]); this.renderCars(); }
    });
    const go = el("button", { id: "btn-race", class: "primary", type: "button", text: "Race" });
    go.addEventListener("click", () => this.start(this.options()));
    this.slider = el("input", { type: "range", min: "0", max: "0", value: "0", id: "race-slider" });
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    const btn = (id, text, title, fn) => {
      const b = el("button", { id, type: "button", text, title }); b.addEventListener("click", fn); return b;
    };
    this.play = btn("race-play", "▶ Play", "play the race one car-turn at a time", () => this.toggle());
    this.under = el("select", { id: "race-analysis", title: "how the analysis's trajectories and coverage show under the race" });
    for (const v of ["faded", "hidden", "shown"]) this.under.append(el("option", { value: v, text: v }));
    this.under.value = this.view.underRace;
    this.under.addEventListener("change", () => { this.view.underRace = this.under.value; this.view.invalidate(); });
    this.standings = el("table", { class: "standings", id: "race-standings" });
    this.replay = el("div", { class: "replay", hidden: "" },
      el("div", { class: "replay-buttons" },
        btn("race-first", "|◀", "the start", () => this.show(0)),
        btn("race-back", "◀", "one car-turn back", () => this.show(this.k - 1)),
        this.play,
        btn("race-next", "▶", "one car-turn on", () => this.show(this.k + 1)),
        btn("race-last", "▶|", "the end", () => this.show(this.result.steps.length)),
        btn("race-close", "✕", "close the race: back to the analysis", () => this.reset())),
      this.slider, el("div", { id: "race-step", class: "race-step" }),
      el("label", { class: "field" }, document.createTextNode("analysis under the race "), this.under),
      this.standings);
    panel.replaceChildren(el("h3", { text: "Race" }), this.cars,
      el("div", { class: "field" }, add, el("span", { text: "laps" }), this.laps,
        el("span", { text: "seed" }), this.seed),
      el("div", { class: "field" }, go), this.replay);
    this.renderCars();
  }

  color(i) { const c = this.info.colors || []; return c.length ? c[i % c.length] : "#212121"; }

  renderCars() {
    this.cars.replaceChildren(...this.drivers.map((d, i) => {
      const sel = el("select", { "data-car": String(i) });
      for (const name of this.info.drivers) sel.append(el("option", { value: name, text: name }));
      sel.value = d;
      sel.addEventListener("change", () => { this.drivers[i] = sel.value; });
      const remove = el("button", { type: "button", text: "×", title: "remove this car" });
      remove.disabled = this.drivers.length === 1;
      remove.addEventListener("click", () => { this.drivers.splice(i, 1); this.renderCars(); });
      const sw = el("i", { class: "sw car" });
      sw.style.background = this.color(i);
      return el("div", { class: "field" }, el("span", { class: "label" }, sw, document.createTextNode(`car ${i}`)), sel, remove);
    }));
  }

  options() {
    return { drivers: [...this.drivers], laps: parseInt(this.laps.value, 10) || 1,
      seed: parseInt(this.seed.value, 10) || 0 };
  }

  // A finished race: precompute where every car stands after each car-turn.
  setResult(payload) {
    this.stop();
    this.result = payload;
    const cars = payload.race.cars;
    let pos = cars.map((c) => c.trajectory[0]);
    this.frames = [pos];
    for (const s of payload.steps) {
      pos = pos.slice();
      pos[s.car] = s.after;
      this.frames.push(pos);
    }
    this.slider.max = String(payload.steps.length);
    this.replay.hidden = false;
    this.show(0);
    this.onChange();
  }

  // The standings once k car-turns are shown: who has finished, in order, then the rest.
  renderStandings() {
    const { caption, rows } = standingsAt(this.result, this.k);
    const cols = ["place", "car", "driver", "moves", "laps", "status"];
    this.standings.replaceChildren(
      el("caption", { text: caption }),
      el("thead", {}, el("tr", {}, ...cols.map((h) => el("th", { text: h, class: `c-${h}` })))),
      el("tbody", {}, ...rows.map((r) => {
        const sw = el("i", { class: "sw car" });
        sw.style.background = this.result.colors[r.car];
        return el("tr", { class: r.state, "data-car": String(r.car) },
          el("td", { class: "c-place", text: r.place }),
          el("td", { class: "c-car" }, sw, document.createTextNode(String(r.car))),
          el("td", { class: "c-driver", text: r.driver }), el("td", { class: "c-moves", text: r.moves }),
          el("td", { class: "c-laps", text: r.laps }), el("td", { class: "c-status", text: r.status }));
      })));
  }

  show(k) {
    if (!this.result) return;
    this.k = Math.max(0, Math.min(this.result.steps.length, k));
    this.slider.value = String(this.k);
    const s = this.result.steps[this.k - 1];
    const what = s ? `car ${s.car}, turn ${s.turn}: (${s.before.join(", ")}) → (${s.after.join(", ")})` +
      (s.events.length ? ` · ${s.events.map((e) => `${e.kind}: ${e.detail}`).join("; ")}` : "") : "the grid";
    $("race-step").textContent = `step ${this.k} of ${this.result.steps.length} · ${what}`;
    this.view.setRace({ colors: this.result.colors, steps: this.result.steps, frame: this.frames[this.k], k: this.k,
      gone: this.result.finishers.filter((f) => f.step < this.k).map((f) => f.car) });
    this.renderStandings();
    if (this.k >= this.result.steps.length) this.stop();
  }

  reset() {
    this.stop();
    const had = this.result !== null;
    this.result = null;
    this.replay.hidden = true;
    this.view.setRace(null);
    if (had) this.onChange();
  }

  toggle() { if (this.timer) this.stop(); else this.go(); }

  go() {
    if (this.k >= this.result.steps.length) this.show(0);
    this.play.textContent = "⏸ Pause";
    this.timer = setInterval(() => this.show(this.k + 1), 180);
  }

  stop() {
    clearInterval(this.timer); this.timer = null;
    if (this.play) this.play.textContent = "▶ Play";
  }
}
