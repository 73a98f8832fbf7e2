// The right-hand panels: validator messages, figures with their certificate verdicts,
// the trajectory card and move list. Text only goes in through textContent.

import { $, el } from "./dom.js";

const LEVEL = (a, b) => {
  if (a === 0 && b === 0) return "ground";
  if (a === 1 && b === 1) return "on the bridge (elevated)";
  return a === 0 ? "ramp: ground → elevated" : "ramp: elevated → ground";
};
const XY = (p) => `(${p[0]}, ${p[1]})`;
const V = (v) => `(${v[0]}, ${v[1]})`.replaceAll("-", "−");

export function showVerdict(verdict, onPick) {
  const box = $("verdict"), list = $("messages");
  list.replaceChildren();
  if (!verdict) { box.textContent = "…"; box.className = "verdict"; return; }
  const unreachable = verdict.messages.some((m) => m.level === "unreachable");
  if (verdict.valid && !unreachable) {
    box.textContent = `✓ valid — ${verdict.summary}`;
    box.className = "verdict ok";
  } else if (verdict.valid) {
    box.textContent = `valid file, but the finish is unreachable — ${verdict.summary}`;
    box.className = "verdict warn";
  } else {
    box.textContent = "✗ not a valid track yet";
    box.className = "verdict bad";
  }
  for (const m of verdict.messages) {
    const li = el("li", { class: m.level, title: "click: show it on the grid" },
      el("b", { text: m.where ? `${m.where}: ` : "" }), document.createTextNode(m.message));
    li.addEventListener("click", () => onPick(m));
    list.append(li);
  }
}

export function showFigures(analysis, certificate) {
  const table = $("figures"), body = table.querySelector("tbody");
  body.replaceChildren();
  table.hidden = !analysis;
  $("verdict-head").hidden = !certificate;
  if (!analysis) return;
  for (const f of analysis.figures) {
    if (f.name === "move_validity" && !certificate) continue;
    const row = el("tr", { "data-figure": f.name },
      el("td", { title: f.meaning, text: f.label }),
      el("td", { class: "value", title: f.absent || String(f.value ?? ""), text: f.display }));
    if (certificate) {
      const c = certificate.figures[f.name];
      const cell = el("td", { class: "cert" });
      if (c) {
        cell.append(el("span", { class: `badge ${c.verdict}`, title: c.reason, text: c.verdict }));
        const methods = [...new Set(c.checks.map((k) => k.method))];
        for (const k of c.checks) {
          if (!methods.includes(k.method)) continue;
          methods.splice(methods.indexOf(k.method), 1);
          cell.append(el("div", { class: `method ${k.verdict}`,
            title: `${k.verdict}: ${k.reason}${k.work ? ` (work: ${k.work})` : ""}`, text: k.method }));
        }
      }
      row.append(cell);
    }
    body.append(row);
  }
}

export function showCertificate(certificate) {
  const box = $("cert-status");
  box.hidden = !certificate;
  if (!certificate) return;
  box.className = `cert-status ${certificate.status}`;
  box.textContent = certificate.headline;
}

export function trajectoryCard(t, step) {
  const ties = t.ties ? ` · ${t.ties} tied` : "";
  const head = el("div", { class: `card-head ${t.name}` },
    el("b", { text: t.title }),
    document.createTextNode(` · ${t.moves} moves · length ${t.length.toFixed(3)}${ties}`));
  const exact = el("div", { class: "exact", text: `exact length ${t.length_exact}` });
  const out = [head, exact];
  if (step !== null && step !== undefined) {
    const st = t.steps[step];
    out.push(el("div", { class: "move" },
      el("b", { text: `move ${step + 1} of ${t.moves}: ` }),
      document.createTextNode(`${XY(st.from)} → ${XY(st.to)} · v = ${V(st.v)} · speed ${st.speed}` +
        ` · ${LEVEL(st.layers[0], st.layers[1])}`)));
  }
  return out;
}

export function showTrajectory(t, step) {
  const panel = $("traj-panel");
  panel.hidden = !t;
  if (!t) return;
  $("traj-title").textContent = t.title;
  $("traj-title").className = t.name;
  $("traj-summary").replaceChildren(...trajectoryCard(t, null));
  const body = $("traj-moves").querySelector("tbody");
  body.replaceChildren(...t.steps.map((st, i) => el("tr", { class: i === step ? "current" : "" },
    el("td", { text: String(i + 1) }), el("td", { text: `${XY(st.from)} → ${XY(st.to)}` }),
    el("td", { text: V(st.v) }), el("td", { text: st.speed }),
    el("td", { text: LEVEL(st.layers[0], st.layers[1]) }))));
  const cur = body.querySelector("tr.current");
  if (cur) {  // scroll the move list only, never the whole panel
    const wrap = cur.closest(".moves-wrap");
    const top = cur.offsetTop - wrap.querySelector("thead").offsetHeight;
    if (top < wrap.scrollTop || cur.offsetTop + cur.offsetHeight > wrap.scrollTop + wrap.clientHeight) {
      wrap.scrollTop = Math.max(0, top - wrap.clientHeight / 3);
    }
  }
}
