// The Race panel (shown when the server has the race package): built-in drivers, laps
// and a seed; then a step-by-step replay of the race on the grid, one car-turn a step.

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

export class RacePanel {
  constructor(info, view, start) {
    this.info = info; this.view = view; this.start = start;
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
    this.replay = el("div", { class: "replay", hidden: "" },
      el("div", { class: "replay-buttons" },
        btn("race-first", "|◀", "the start", () => this.show(0)),
        btn("race-back", "◀", "one car-turn back", () => this.show(this.k - 1)),
        this.play,
        btn("race-next", "▶", "one car-turn on", () => this.show(this.k + 1)),
        btn("race-last", "▶|", "the end", () => this.show(this.result.steps.length))),
      this.slider, el("div", { id: "race-step", class: "race-step" }),
      el("table", { class: "figures standings", id: "race-standings" }));
    panel.replaceChildren(el("h3", { text: "Race" }), this.cars,
      el("div", { class: "field" }, add, el("span", { text: "laps" }), this.laps,
        el("span", { text: "seed" }), this.seed),
      el("div", { class: "field" }, go), this.replay);
    this.renderCars();
  }

  renderCars() {
    this.cars.replaceChildren(...this.drivers.map((d, i) => {
      const sel = el("select", { "data-car": String(i) });
      for (const name of this.info.drivers) sel.append(el("option", { value: name, text: name }));
      sel.value = d;
      sel.addEventListener("change", () => { this.drivers[i] = sel.value; });
      const remove = el("button", { type: "button", text: "×", title: "remove this car" });
      remove.disabled = this.drivers.length === 1;
      remove.addEventListener("click", () => { this.drivers.splice(i, 1); this.renderCars(); });
      return el("div", { class: "field" }, el("span", { class: "label", text: `car ${i}` }), sel, remove);
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
    const [head, ...rows] = [payload.standings.header, ...payload.standings.rows];
    $("race-standings").replaceChildren(
      el("thead", {}, el("tr", {}, ...head.slice(0, 7).map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.slice(0, 7).map((c, j) => {
        const td = el("td", { text: c });
        if (j === 1) td.prepend(el("i", { class: "sw car" }));
        return td;
      })))));
    $("race-standings").querySelectorAll("tbody tr").forEach((tr, i) => {
      const sw = tr.querySelector("i.car");
      if (sw) sw.style.background = payload.colors[Number(rows[i][1])];
    });
    this.show(0);
  }

  show(k) {
    if (!this.result) return;
    this.k = Math.max(0, Math.min(this.result.steps.length, k));
    this.slider.value = String(this.k);
    const s = this.result.steps[this.k - 1];
    const what = s ? `car ${s.car}, turn ${s.turn}: (${s.before.join(", ")}) → (${s.after.join(", ")})` +
      (s.events.length ? ` · ${s.events.map((e) => `${e.kind}: ${e.detail}`).join("; ")}` : "") : "the grid";
    $("race-step").textContent = `step ${this.k} of ${this.result.steps.length} · ${what}`;
    this.view.setRace({ colors: this.result.colors, steps: this.result.steps, frame: this.frames[this.k], k: this.k });
    if (this.k >= this.result.steps.length) this.stop();
  }

  reset() {
    this.stop();
    this.result = null;
    this.replay.hidden = true;
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
