"""What the page shows after Analyse or Certify on a read-only (lattice or cell-path) track.

Built from the results' public faces only — `to_json()`, `_repr_svg_()`, `status`,
`headline` — so that the profile pipelines may move without the studio following:
the picture is the profile's own SVG (the one `racecert analyze -o FILE.svg` writes),
and the figures table has one row per figure of the profile's certificate (m*, the
counts, the optimal starts, green and blue lengths and ties), with the names the
certificate's verdicts carry, so that Certify puts each verdict beside its value just
as on a grid track (`racecert.studio.payload`, whose row and verdict shapes these are).
Imported by a job's process only (`racecert.studio.worker`), never by the server.
"""

from __future__ import annotations

from typing import Any

from racecert.studio.payload import pretty_radical

ROWS = (
    ("move_validity", "move validity", "the profile's rules, checked move by move"),
    ("reachable", "reachable", "some trajectory reaches the finish"),
    ("m_star", "m* (minimum moves)", "the least number of moves to the finish"),
    ("optimal_count", "optimal trajectories", "trajectories of m* moves"),
    ("final_states", "distinct final states", "states the optimal trajectories end in"),
    ("optimal_starts", "optimal starts", "the starts that finish in m* moves, with counts"),
    ("green_length", "green: length", "the shortest optimal trajectory's length"),
    ("green_ties", "green: tied trajectories", "optimal trajectories of that length"),
    ("blue_length", "blue: length", "the longest optimal trajectory's length"),
    ("blue_ties", "blue: tied trajectories", "optimal trajectories of that length"),
    ("states_explored", "states explored", "states the BFS stored (no certificate row)"),
)
"""(name, label, meaning) of each row, in the page's order."""


def _values(report: dict[str, Any]) -> dict[str, tuple[Any, str]]:
    """Each figure's exact value and display text, from the analysis's `to_json()`."""
    out: dict[str, tuple[Any, str]] = {
        "reachable": (report["reachable"], "yes" if report["reachable"] else "no"),
        "states_explored": (report["states_explored"], f"{report['states_explored']:,}"),
    }
    if not report["reachable"]:
        return out
    out["m_star"] = (report["m_star"], str(report["m_star"]))
    out["optimal_count"] = (report["optimal_count"], f"{int(report['optimal_count']):,}")
    out["final_states"] = (report["final_states"], f"{report['final_states']:,}")
    starts = "; ".join(f"({s['position'][0]}, {s['position'][1]}): "
                       f"{int(s['optimal_count']):,}" for s in report["optimal_starts"])
    out["optimal_starts"] = (starts, starts)
    for name in ("green", "blue"):
        t = report.get(name)
        if t is not None:
            out[f"{name}_length"] = (t["length_exact"], f"{t['length']:.3f} = "
                                     f"{pretty_radical(t['length_exact'])}")
            out[f"{name}_ties"] = (t["ties"], f"{int(t['ties']):,}")
    return out


def view_analysis_payload(a: Any) -> dict[str, Any]:
    """Everything the page shows after Analyse on a lattice or cell-path track: the
    headline figures (`figures`, the grid payload's row shape), the picture (`svg`), and
    the report itself (`report`: `to_json()`, with what the profile skips and why)."""
    report = a.to_json()
    values = _values(report)
    figures = []
    for name, label, meaning in ROWS:
        value, display = values.get(name, (None, "—"))
        absent = None if name in values or name == "move_validity" else "unreachable"
        figures.append({"name": name, "label": label, "meaning": meaning, "value": value,
                        "absent": absent, "display": display})
    return {"view": True, "track": report["track"], "profile": report["rules"],
            "mode": report["mode"], "reachable": report["reachable"],
            "m_star": report["m_star"], "kind": None, "seconds": report["seconds"],
            "figures": figures, "trajectories": [], "coverage": None,
            "skipped": report["skipped"], "svg": a._repr_svg_(), "report": report}


def view_certificate_payload(c: Any) -> dict[str, Any]:
    """Everything the page shows after Certify on a lattice or cell-path track: the
    status and headline, each figure's verdict and checks (`to_json()`), and the
    analysis it certified (`view_analysis_payload`), its move-validity row filled in
    with the rules the certificate checked."""
    cert = c.to_json()
    analysis = view_analysis_payload(c.analysis)
    figures = cert["figures"]
    for row in analysis["figures"]:
        if row["name"] == "move_validity" and "move_validity" in figures:
            row["value"] = row["display"] = str(figures["move_validity"]["value"])
    return {
        "status": c.status, "headline": c.headline.removesuffix(": see the table"),
        "unconfirmed": cert["unconfirmed"], "seconds": cert["timing"]["total"],
        "figures": {name: {"verdict": f["verdict"], "reason": f["reason"],
                           "checks": [{"method": k["method"], "verdict": k["verdict"],
                                       "reason": k["reason"], "work": k["work"],
                                       "figure": k["figure"]} for k in f["checks"]]}
                    for name, f in figures.items()},
        "analysis": analysis,
        "certificate": cert,
    }
