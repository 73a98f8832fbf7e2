"""The final standings of a race, as rows (the text output, the SVG and the HTML share them)
and as the text report of `racecert race`."""

from __future__ import annotations

from racecert.race.engine import RaceResult

HEADER = ("pos", "car", "driver", "start", "moves", "laps", "per lap", "waits", "blocked",
          "replans", "states")


def standings_rows(result: RaceResult) -> list[tuple[str, ...]]:
    """One row per car: the finishers in `result.order`, then the others ("DNF"), those
    with more laps first, then by car index."""
    finished = list(result.order)
    rest = sorted((c for c in range(len(result.cars)) if c not in finished),
                  key=lambda i: (-result.cars[i].laps_completed, i))
    rows = []
    for rank, i in enumerate(finished + rest, start=1):
        c = result.cars[i]

        def count(kind: str, car=c) -> str:
            return str(sum(1 for e in car.events if e.kind == kind))

        x, y = c.slot.position
        rows.append((
            str(rank) if c.finished else "DNF", str(i), c.driver,
            f"({x}, {y})" + ("*" if c.slot.derived else ""), str(c.moves),
            f"{c.laps_completed}/{result.laps}", " ".join(map(str, c.moves_per_lap)) or "-",
            count("wait"), count("blocked"), count("replan"), str(c.states_expanded)))
    return rows


def standings_text(result: RaceResult) -> str:
    """The race summary and its standings table (a `*` marks a derived grid slot)."""
    rows = [HEADER, *standings_rows(result)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    status = ("finished" if result.status == "finished"
              else f"ended at the move limit ({result.move_limit} turns)")
    head = (f"race: {result.track.name}, {result.laps} lap(s), seed {result.seed}, "
            f"{len(result.cars)} car(s): {status} after {result.turns} turn(s)")
    notes = []
    if any(c.slot.derived for c in result.cars):
        notes.append("* a derived grid slot (the track lists fewer slots than cars)")
    notes.append("moves count turns, waits included; states: search states the driver "
                 "expanded")
    return "\n".join([head, "", *lines, "", *notes])
