// Jobs: Analyse, Certify and Race run on the server (racecert/studio/jobs.py), their
// events streamed to the page; Cancel ends one. The job panel at the top of the
// right-hand column (sticky: it never scrolls away) shows the status line, a progress
// bar, the step running with the seconds since the start, and the log of the steps.

import { $ } from "./dom.js";
import { api, follow } from "./api.js";

const ANALYSIS_STEPS = ["yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score"];

let state = null;
let setResults = null;

// Bind the jobs to the page's state; `hooks.setResults(analysis, certificate)` shows results.
export function initJobs(pageState, hooks) {
  state = pageState;
  setResults = hooks.setResults;
}

const VERB = { analyze: "Analysing", certify: "Certifying", race: "Racing" };

export async function runJob(kind, extra = {}) {
  if (state.job) return;
  const view = state.viewOnly;  // a read-only track: the job runs on its file's text
  const document_ = view ? null : state.doc.toJSON();
  const version = state.version;
  let started;
  try {
    started = await api.startJob(kind, document_, $("mode").value,
      view ? { ...extra, view: { text: view.text, file: view.file } } : extra);
  } catch (e) {
    runStatus(e.message, "bad");
    return;
  }
  const job = { id: started.id, kind, steps: 0, version, t0: performance.now() };
  state.job = job;
  setRunning(true);
  jobLog(job, null);
  runStatus(kind === "certify" ? "Certifying… (independent checks can take a while)" : `${VERB[kind]}…`);
  progress(0);
  follow(job.id, (event) => onJobEvent(job, event));
}

function onJobEvent(job, event) {
  if (state.job !== job) return;
  if (event.type === "step") {
    job.steps++;
    job.step = event.name;
    jobLog(job, event.name);
    const total = job.kind === "analyze" ? ANALYSIS_STEPS.length : null;
    progress(total ? job.steps / total : null);
    runStatus(`${VERB[job.kind]}: ${event.name}…`);
  } else if (event.type === "bfs") {
    runStatus(`${VERB[job.kind]}: ${job.step || "bfs"} — ` +
      `BFS depth ${event.depth}, ${event.states.toLocaleString("en")} states`);
  } else if (event.type === "result" && job.kind === "race") {
    finishJob();
    const race = event.data.race;
    state.race.setResult(event.data);
    runStatus(`Race: ${race.status === "finished" ? "every car finished" : "ended at the move limit"}` +
      ` after ${race.turns} turns — use the replay controls to step through it.`, "ok");
  } else if (event.type === "result") {
    finishJob();
    const analysis = job.kind === "analyze" ? event.data : event.data.analysis;
    const certificate = job.kind === "certify" ? event.data : null;
    setResults(analysis, certificate);
    state.analysedVersion = job.version;
    $("stale").hidden = state.version === job.version;
    const a = analysis;
    runStatus(a.reachable
      ? `m* = ${a.m_star} · ${a.figures.find((f) => f.name === "optimal_count").display} optimal ` +
        `trajectories · ${a.kind ? `${a.kind} · ` : ""}${a.seconds.toFixed(2)} s`
      : a.view ? "The finish is unreachable from the start."
        : "The finish is unreachable: no trajectory crosses the start and then the finish line.",
    a.reachable ? "ok" : "bad");
  } else if (event.type === "error") {
    finishJob();
    runStatus(event.message, "bad");
  } else if (event.type === "cancelled") {
    finishJob();
    runStatus("Cancelled.", "");
  }
}

function finishJob() {
  const job = state.job;
  state.job = null;
  setRunning(false);
  $("progress").hidden = true;
  if (job) jobLog(job, undefined);
}

// The job panel (sticky at the top of the right-hand column, so that a job's progress stays
// in view however far the panels below are scrolled): the step running, the seconds since
// the start, and the log of the steps so far, each with its seconds. `name`: null when
// the job starts, a step's name when one starts, undefined when the job ends.
function jobLog(job, name) {
  const log = $("job-log"), now = performance.now();
  const seconds = (t) => `${((now - t) / 1000).toFixed(1)} s`;
  const last = log.lastElementChild;
  if (name === null) {
    log.replaceChildren();
    clearInterval(state.jobTimer);
    state.jobTimer = setInterval(() => {
      if (state.job === job) $("job-elapsed").textContent = `${((performance.now() - job.t0) / 1000).toFixed(0)} s`;
    }, 500);
    $("job-info").hidden = false;
    $("job-step").textContent = `${VERB[job.kind]}…`;
    $("job-elapsed").textContent = "0 s";
    log.hidden = true;
    return;
  }
  if (last && !last.dataset.done) {
    last.dataset.done = "true";
    last.querySelector(".t").textContent = seconds(Number(last.dataset.t0));
  }
  if (name === undefined) {  // the job ended: the log folds away behind a toggle
    clearInterval(state.jobTimer);
    const toggle = document.createElement("button");
    toggle.type = "button"; toggle.className = "link"; toggle.id = "job-log-toggle";
    toggle.textContent = `${VERB[job.kind]}: ended · ${log.children.length} step(s) ▸`;
    toggle.title = "show or hide the steps and their seconds";
    toggle.addEventListener("click", () => { log.hidden = !log.hidden; });
    $("job-step").replaceChildren(toggle);
    $("job-elapsed").textContent = seconds(job.t0);
    log.hidden = true;
    return;
  }
  const li = document.createElement("li");
  li.dataset.t0 = String(now);
  const n = document.createElement("span"); n.textContent = name;
  const t = document.createElement("span"); t.className = "t"; t.textContent = "…";
  li.append(n, t);
  log.append(li);
  log.hidden = false;
  log.scrollTop = log.scrollHeight;
  $("job-step").textContent = `step ${job.steps}: ${name}`;
}

export async function cancelJob() {
  const job = state.job;
  if (!job) return;
  runStatus("Cancelling…");
  try { await api.cancelJob(job.id); } catch (e) { runStatus(e.message, "bad"); }
}

function setRunning(on) {
  $("btn-cancel").hidden = !on;
  $("btn-analyse").disabled = on;
  $("btn-certify").disabled = on;
  if ($("btn-race")) $("btn-race").disabled = on;
}

function progress(fraction) {
  const bar = $("progress");
  bar.hidden = false;
  bar.classList.toggle("indeterminate", fraction === null);
  $("progress-bar").style.width = fraction === null ? "30%" : `${Math.round(100 * fraction)}%`;
}

function runStatus(text, cls = "") {
  const s = $("run-status");
  s.textContent = text;
  s.className = `run-status ${cls}`;
}
