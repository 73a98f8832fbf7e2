"""Benchmark of the independent search (racecert.independent) on every bundled and generated track.

Each case runs in a fresh subprocess (`python -m benchmarks.bench_independent CASE`),
which parses the track, runs `explore` (fastgeom moves, int64 keys, limb counts)
and then `check_count_certificate` on its DAG, and prints one JSON line; the
parent reads the child's peak RSS from `os.wait4` and compares the figures with
the oracle's `layered_bfs` (run in the parent, so it does not count towards the
child's memory): m*, the exact count, the final states with their counts, the
states explored.

Run one case by hand: `python -m benchmarks.bench_independent llanura`.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from benchmarks.child import measured
from benchmarks.generate import corridor, open_area

TRACKS = Path(__file__).resolve().parent.parent / "tracks"
GENERATED = {
    "open120": ("generated open 120×120, car (1, 60) → x = 100", open_area(120, 60, 100)),
    "corridor1000": ("generated corridor 1000×5", corridor(1000, 5)),
    "open200": ("generated open 200×200, car (1, 100) → x = 180", open_area()),
}


def _track(name: str):  # noqa: ANN202 - a Track; imported lazily (the child's RSS)
    from racecert.model.parse import load_track, parse_track

    if name in GENERATED:
        return parse_track(GENERATED[name][1].encode(), f"<{name}>")
    return load_track(str(TRACKS / f"{name}.toml"))


def run_case(name: str, mode: str) -> dict[str, object]:
    """Search and check one case in this process: timings, figures and ru_maxrss."""
    from racecert.independent.countcheck import check_count_certificate
    from racecert.independent.search import explore

    if name == "baseline":
        return {"self_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    track = _track(name)
    w0, c0 = time.perf_counter(), time.process_time()
    r = explore(track, mode)  # type: ignore[arg-type]
    w1, c1 = time.perf_counter(), time.process_time()
    check = check_count_certificate(track, r.dag) if r.dag is not None else None
    w2, c2 = time.perf_counter(), time.process_time()
    finals = ({str(r.dag.finals.row(i)): str(c) for i, c in enumerate(r.dag.final_counts)}
              if r.dag is not None else {})
    return {
        "status": r.status, "m_star": r.m_star, "optimal_count": str(r.optimal_count),
        "finals": finals, "states_explored": r.states_explored,
        "dag_states": r.dag.size if r.dag is not None else 0,
        "search_s": w1 - w0, "search_cpu_s": c1 - c0, "check_s": w2 - w1,
        "check_cpu_s": c2 - c1, "check": "ok" if check and check.ok else (
            check.reason if check else "no DAG"),
        "self_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def measure(name: str, mode: str) -> dict[str, object]:
    """One case in a fresh subprocess; its JSON result plus the child's peak RSS in MB."""
    return measured("benchmarks.bench_independent", name, mode, what=f"case {name}")


def _oracle(name: str, mode: str) -> dict[str, object]:
    from racecert.oracle.bfs import layered_bfs

    r = layered_bfs(_track(name), mode)  # type: ignore[arg-type]
    return {"m_star": r.m_star, "optimal_count": str(r.optimal_count),
            "finals": {str(k): str(c) for k, c in r.final_state_list()},
            "states_explored": r.states_explored}


def cases() -> list[tuple[str, str, str]]:
    """(case name, mode, title) for every bundled track (both keys with an opening rule)
    and the generated tracks."""
    out = []
    for path in sorted(TRACKS.glob("*.toml")):
        has_opening = "[opening]" in path.read_text()
        for mode in ("exact", "editor") if has_opening else ("exact",):
            out.append((path.stem, mode, path.stem))
    out += [(name, "exact", title) for name, (title, _) in GENERATED.items()]
    return out


def section() -> str:
    """Markdown: per case, the figures, agreement with the oracle, times and peak RSS."""
    baseline = measure("baseline", "exact")["peak_mb"]
    rows = ["| track | key | status | m* | optimal trajectories | final states | "
            "states explored | DAG states | = oracle | search s (CPU) | count check s (CPU) | "
            "check | peak RSS MB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    total_s = 0.0
    # every child first: a child forked after the parent ran the oracle would inherit
    # the parent's peak RSS in its own ru_maxrss
    results = [(name, mode, title, measure(name, mode)) for name, mode, title in cases()]
    for name, mode, title, r in results:
        o = _oracle(name, mode)
        same = all(r[k] == o[k] for k in ("m_star", "optimal_count", "finals",
                                          "states_explored"))
        total_s += float(r["search_s"]) + float(r["check_s"])  # type: ignore[arg-type]
        rows.append(
            f"| {title} | {mode} | {r['status']} | {r['m_star'] if r['m_star'] else '—'} | "
            f"{int(r['optimal_count']):,} | {len(r['finals']):,} | "  # type: ignore[arg-type]
            f"{r['states_explored']:,} | {r['dag_states']:,} | "
            f"{'yes' if same else '**NO**'} | {r['search_s']:.2f} ({r['search_cpu_s']:.2f}) | "
            f"{r['check_s']:.2f} ({r['check_cpu_s']:.2f}) | {r['check']} | "
            f"{r['peak_mb']:.0f} |")
    return "\n".join([
        "## Independent search and count certificate",
        "",
        "`benchmarks/bench_independent.py`: `racecert.independent.search.explore` (moves by "
        "the integer geometry `fastgeom`, its own int64 key, exact counts in 24-bit limbs) "
        "and `racecert.independent.countcheck.check_count_certificate` (every DAG move "
        "re-derived, every count re-summed with Python ints), each case in a fresh Python "
        "process. \"= oracle\" compares m*, the exact count, every final state with its "
        "count and the states explored with `layered_bfs` (run in the parent). Peak RSS is "
        f"the child's, of which importing numpy and racecert takes {baseline:.0f} MB. "
        f"Total search + check wall time: {total_s:.1f} s.",
        "",
        *rows,
        "",
    ])


if __name__ == "__main__":
    print(json.dumps(run_case(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "exact")))
