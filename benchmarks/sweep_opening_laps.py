"""Seeded sweep: `analyze` in both modes on random small circuits with opening rules (#14).

Each case is `benchmarks.circuits.circuit_toml` drawn from `random.Random(f"{seed}/{i}")`
(so any single case can be rebuilt from its seed and index). Every valid track is
analysed with the exact and the editor key; the sweep records what raised, tallies
the outcomes, and checks what must hold between the two keys:

- the exact key always finds m_cont on a circuit with no continuable optimal arrival
  (it never reports "editor-key-finds-none");
- the first continuable depth (m* when an optimal arrival continues, else m_cont) of
  the editor key is never below the exact key's (the editor's trajectories are real);
- where the editor key finds none, the exact m_cont it reports beside its null is the
  exact key's first continuable depth.

    python -m benchmarks.sweep_opening_laps --count 2000 --seed 0     # exit 1 on a failure

`tests/analysis/test_opening_laps.py` runs a slice of it in `make test`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.circuits import RandomPicker, circuit_toml
from racecert.analysis import analyze
from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.track import Track

MODES = ("exact", "editor")


@dataclass(frozen=True)
class Failure:
    """One case that raised or broke a rule between the keys: its index, what, the track."""

    index: int
    what: str
    toml: str


@dataclass
class SweepReport:
    """What a sweep saw: valid and rejected drafts, outcome tallies, failures."""

    seed: int
    count: int
    valid: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0


def case_toml(seed: int, index: int) -> str:
    """The track text of case `index` of the sweep with `seed`."""
    return circuit_toml(RandomPicker(random.Random(f"{seed}/{index}")))


def first_continuable(j: dict[str, Any]) -> int | None:
    """The first depth with a continuable arrival that this key found (None: none found)."""
    if j["m_cont_null_reason"] == "optimal-arrival-continues":
        return j["m_star"]
    return j["m_cont"]


def key_rules(exact: dict[str, Any], editor: dict[str, Any]) -> list[str]:
    """What breaks the rules between the two keys' reports (empty: nothing)."""
    bad = []
    if exact["m_cont_null_reason"] == "editor-key-finds-none":
        bad.append("the exact key reports no continuable arrival on a circuit")
    first, first_editor = first_continuable(exact), first_continuable(editor)
    if first_editor is not None and (first is None or first_editor < first):
        bad.append(f"editor key continues at {first_editor}, before the exact key ({first})")
    if editor["m_cont_null_reason"] == "editor-key-finds-none":
        if editor["m_cont_exact"] != first:
            bad.append(f"editor reports exact m_cont {editor['m_cont_exact']}, exact key {first}")
    return bad


def outcome_label(mode: str, j: dict[str, Any]) -> str:
    """A short tally label: mode, kind, opening still active at arrival, m_cont status."""
    if not j["reachable"]:
        return f"{mode}: unreachable"
    opening = "opening active at arrival" if j["opening_active_at_arrival"] else "opening over"
    status = j["m_cont_null_reason"] or "m_cont found"
    return f"{mode}: {j['kind']}, {opening}, {status}"


def run_case(track: Track) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Both analyses of `track` as JSON, and what went wrong (exceptions are caught)."""
    out: dict[str, dict[str, Any]] = {}
    bad = []
    for mode in MODES:
        try:
            out[mode] = analyze(track, mode).to_json()  # type: ignore[arg-type]
        except Exception as exc:  # the sweep's job is to record any exception
            bad.append(f"{mode} mode raised {type(exc).__name__}: {exc}")
    if len(out) == len(MODES):
        bad += key_rules(out["exact"], out["editor"])
    return out, bad


def sweep(count: int, seed: int = 0,
          progress: Callable[[int], None] | None = None) -> SweepReport:
    """Analyse `count` drafts (seeded) in both modes; see the module docstring."""
    t0 = time.perf_counter()
    report = SweepReport(seed, count)
    for i in range(count):
        text = case_toml(seed, i)
        try:
            track = parse_track(text.encode(), f"<case {i}>")
        except TrackError as exc:
            report.rejected[exc.message] += 1
            continue
        report.valid += 1
        results, bad = run_case(track)
        for mode, j in results.items():
            report.outcomes[outcome_label(mode, j)] += 1
        report.failures += [Failure(i, b, text) for b in bad]
        if progress is not None:
            progress(i)
    report.seconds = time.perf_counter() - t0
    return report


def markdown(r: SweepReport) -> str:
    """The report as markdown: counts, tallies and every failure with its track."""
    lines = [f"Sweep of {r.count} drafts (seed {r.seed}): {r.valid} valid tracks, "
             f"{sum(r.rejected.values())} rejected by the validator, "
             f"{len(r.failures)} failures, {r.seconds:.1f} s.", "",
             "| outcome | tracks |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(r.outcomes.items())]
    if r.rejected:
        lines += ["", "Rejected drafts: " + "; ".join(f"{v} × {k}" for k, v in
                                                      r.rejected.most_common())]
    for f in r.failures:
        lines += ["", f"**case {f.index}**: {f.what}", "", "```toml", f.toml.rstrip(), "```"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    report = sweep(args.count, args.seed)
    print(markdown(report))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
