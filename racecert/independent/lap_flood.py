"""A cheap argument for the kind: a cell flood from beyond the finish (docs/continuity.md).

The kind asks whether some arrival can be followed by a further arrival (a circuit) or
none can (a stage). `racecert.independent.laps` decides it exhaustively, over exact
states; on a large open stage that search runs out of its budget, although the answer is
plain from the map: nothing leads from beyond the finish back to the start line without
crossing a line the wrong way. This module makes that argument, as a relaxation of the
car's motion, and only ever concludes **stage**.

**Why the relaxation is sound.** A move's touched cells c₀ … c_k, in order of entry,
form a walk of unit steps between side or corner neighbours (the segment leaves each
cell through an edge or exactly through a corner; docs/rules.md §2). Along that walk:

- the layer rule is a rule per step: stay in the layer where the next cell is drivable
  in it, else switch when leaving a ramp into a cell drivable in the other layer, else
  the move is invalid (§3);
- the move crosses a line exactly where one of its steps does: a side step between
  (x, y) and (x + 1, y) crosses x = k + ½ iff x = k, at height y; a corner step at the
  corner's height. The span is closed, the layer that counts is the one of the cell
  entered (§4). A crossing against a line's direction makes the whole move invalid;
- crossings come in the order of the steps; a step that crosses both lines crosses them
  at the same point, where the finish counts first (§5).

So every trajectory is a walk over nodes (cell, layer, progress) with these step rules,
and the flood below over-approximates it: it forgets velocities, speeds, shoulders (a
move may pass them), the opening rule and the grid's end cells.

**The flood.** Its sources are the nodes a car can be in right after a legal finish
crossing: for every unit step that crosses F in its direction (and S not against its
own), the cell it enters, on the layer it enters it, with progress 1 iff the same step
also crosses S legally (then S comes after F, so it counts for the next lap), else 0 —
the progress an arrival leaves (docs/rules.md §7). Every arriving move of every
trajectory has such a step, and the rest of that move and every later move continue as
steps of the flood: steps crossing S legally set progress 1, steps crossing a line
against its direction are not taken, and a step crossing F legally with progress 1 is a
further arrival, which the flood looks for. If no node it reaches has such a step, no
arrival can be followed by another: the track is a stage, in the exact key and in any
other (a key only drops trajectories). Otherwise the flood does not decide, and the
exhaustive search must.

It reads the grid strings of a `racecert.model.track.Track` with its own table of
characters and imports nothing else from racecert.

>>> # v = finish_flood(track); v.stage, v.reason
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.independent.unique import distinct_sorted
from racecert.model.track import Line, Track

STEPS: tuple[tuple[int, int], ...] = tuple(
    (dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0))
"""The unit steps of the flood: side and corner neighbours (a move can pass a corner)."""

_OFF = ("#", "# ")  # off-track characters of the ground and of the elevated grid


@dataclass(frozen=True)
class FloodVerdict:
    """What the flood from beyond the finish showed.

    `stage`: True when no reachable node has a legal finish crossing with the start
    crossed (the track is a stage), False when the flood does not decide. `sources`,
    `reached`, `started`: nodes (cell, layer, progress) right after a legal finish
    crossing, reached by the flood, and reached with the start crossed since.
    `witness`: (x, y, layer) of a node with the start crossed from which a unit step
    crosses the finish legally (None when `stage`); the flood stops at the first.
    """

    stage: bool
    sources: int
    reached: int
    started: int
    witness: tuple[int, int, int] | None

    @property
    def reason(self) -> str:
        """What the flood showed, in words (deterministic: no times)."""
        head = (f"cell flood from the {self.sources:,} (cell, layer, progress) nodes right "
                "after a legal finish crossing, by unit steps (8 directions, ramps, no line "
                f"crossed against its direction): {self.reached:,} nodes reached")
        if self.witness is not None:
            x, y, layer = self.witness
            return (f"{head}, among them ({x}, {y}) on layer {layer} with the start crossed, "
                    "next to a legal finish crossing: the flood does not decide")
        if self.started == 0:
            return (f"{head}, none past a legal start crossing: no arrival can be followed by "
                    "another")
        return (f"{head}, {self.started:,} past a legal start crossing but none next to a legal "
                "finish crossing: no arrival can be followed by another")

    @property
    def work(self) -> str:
        """The deterministic work spent."""
        return f"{self.reached:,} flood nodes"


def _surfaces(track: Track) -> tuple[np.ndarray, np.ndarray]:
    """(drivable [layer, y, x], ramp [y, x]) from the grid strings; missing cells are off."""
    h, w = track.height, track.width
    drive = np.zeros((2, h, w), dtype=bool)
    ramp = np.zeros((h, w), dtype=bool)
    for layer, grid in enumerate((track.ground, track.elevated or ())):
        off = np.array([ord(c) for c in _OFF[layer]], dtype=np.uint32)
        for y, row in enumerate(grid[:h]):
            codes = np.frombuffer(row[:w].encode("utf-32-le"), dtype=np.uint32)
            drive[layer, y, :len(codes)] = ~np.isin(codes, off)
            if layer == 0:
                ramp[y, :len(codes)] = codes == ord("/")
    return drive, ramp


def step_crossing(line: Line, x: np.ndarray, y: np.ndarray, dx: int, dy: int,
                  landed: np.ndarray) -> np.ndarray:
    """Per step from (x, y) by (dx, dy) entering a cell on layer `landed`: +1 if it
    crosses `line` in its direction, -1 against it, 0 if not at all.

    A vertical line x = k + ½ over rows lo..hi is met by a step with dx = +1 from x = k
    (dx = -1 from x = k + 1) at the doubled height 2y + dy, which must lie in the closed
    span [2lo - 1, 2hi + 1]; it counts only on the line's layer.
    """
    if line.axis == "x":
        fixed, span, d_fixed, d_span = x, y, dx, dy
    else:
        fixed, span, d_fixed, d_span = y, x, dy, dx
    if d_fixed == 0:
        return np.zeros(x.shape, dtype=np.int8)
    meets = fixed == (line.k if d_fixed > 0 else line.k + 1)
    at = 2 * span + d_span
    meets &= (at >= 2 * line.lo - 1) & (at <= 2 * line.hi + 1) & (landed == line.layer)
    sign = 1 if d_fixed * line.sign > 0 else -1
    return meets.astype(np.int8) * np.int8(sign)


class _Flood:
    """The flood's step rules over nodes (x, y, layer, progress), many nodes at once."""

    def __init__(self, track: Track) -> None:
        self.track = track
        self.w, self.h = track.width, track.height
        self.drive, self.ramp = _surfaces(track)
        self.plane = self.w * self.h

    def node_id(self, x: np.ndarray, y: np.ndarray, layer: np.ndarray,
                progress: np.ndarray) -> np.ndarray:
        """((progress·2 + layer)·H + y)·W + x."""
        return ((progress * 2 + layer) * self.h + y) * self.w + x

    def decode(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(x, y, layer, progress) of node ids."""
        cell, level = ids % self.plane, ids // self.plane
        return cell % self.w, cell // self.w, level % 2, level // 2

    def steps(self, x: np.ndarray, y: np.ndarray, layer: np.ndarray, dx: int, dy: int
              ) -> tuple[np.ndarray, ...]:
        """One unit step (dx, dy) from drivable nodes: (valid, landed layer, new x, new y,
        crosses S legally, crosses F legally); valid excludes wrong-way crossings."""
        w, h = self.w, self.h
        x1, y1 = x + dx, y + dy
        inside = (x1 >= 0) & (x1 < w) & (y1 >= 0) & (y1 < h)
        cx, cy = np.clip(x1, 0, w - 1), np.clip(y1, 0, h - 1)
        stay = inside & self.drive[layer, cy, cx]
        switch = inside & ~stay & self.ramp[y, x] & self.drive[1 - layer, cy, cx]
        landed = np.where(switch, 1 - layer, layer)
        s = step_crossing(self.track.start, x, y, dx, dy, landed)
        f = step_crossing(self.track.finish, x, y, dx, dy, landed)
        ok = (stay | switch) & (s >= 0) & (f >= 0)
        return ok, landed, cx, cy, s == 1, f == 1

    def sources(self) -> np.ndarray:
        """Sorted node ids right after a legal finish crossing (any drivable cell beside F,
        either layer; progress 1 iff the same step crosses S legally)."""
        line = self.track.finish
        across = np.arange(max(line.lo - 1, 0), line.hi + 2)
        found = []
        for fixed in (line.k, line.k + 1):
            xs, ys = (np.full(len(across), fixed), across) if line.axis == "x" \
                else (across, np.full(len(across), fixed))
            keep = (xs >= 0) & (xs < self.w) & (ys >= 0) & (ys < self.h)
            xs, ys = xs[keep], ys[keep]
            for layer in (0, 1):
                on = self.drive[layer, ys, xs]
                x0, y0, lay = xs[on], ys[on], np.full(int(on.sum()), layer)
                for dx, dy in STEPS:
                    ok, landed, x1, y1, s, f = self.steps(x0, y0, lay, dx, dy)
                    go = ok & f
                    found.append(self.node_id(x1[go], y1[go], landed[go], s[go].astype(int)))
        return distinct_sorted(np.concatenate(found)).astype(np.int64)

    def expand(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(successor node ids, mask of `ids` with a further arrival: a legal finish
        crossing with progress 1)."""
        x, y, layer, progress = self.decode(ids)
        arrives = np.zeros(len(ids), dtype=bool)
        out = []
        for dx, dy in STEPS:
            ok, landed, x1, y1, s, f = self.steps(x, y, layer, dx, dy)
            arrives |= ok & f & (progress == 1)
            go = ok & ~(f & (progress == 1))
            new = np.where(s, 1, progress)
            out.append(self.node_id(x1[go], y1[go], landed[go], new[go]))
        return np.concatenate(out), arrives


def finish_flood(track: Track) -> FloodVerdict:
    """The flood from the nodes right after a legal finish crossing (module docstring).

    Breadth-first, one wave of nodes at a time (only reached nodes are ever expanded);
    it stops at the first wave with a further arrival (then it does not decide).
    """
    fl = _Flood(track)
    sources = wave = fl.sources()
    seen = np.zeros(4 * fl.plane, dtype=bool)
    seen[wave] = True
    witness = None
    while len(wave):
        succ, arrives = fl.expand(wave)
        if arrives.any():
            x, y, layer, _ = fl.decode(wave[arrives][:1])
            witness = (int(x[0]), int(y[0]), int(layer[0]))
            break
        found = distinct_sorted(succ)
        wave = found[~seen[found]]
        seen[wave] = True
    reached = int(seen.sum())
    started = int(seen[2 * fl.plane:].sum())
    return FloodVerdict(witness is None, len(sources), reached, started, witness)
