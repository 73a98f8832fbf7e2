"""A second geometry of the lattice profile, written apart from the oracle's.

It reads only the track data (`racecert.model.lattice.track`) and re-derives every rule
of docs/rules.md ("The lattice profile") with other formulas than
`racecert.model.lattice.geometry`:

- segments meet when p + t r = a + u s has a solution with t, u in [0, 1]: Cramer's
  rule on integer numerators (signs normalised so the denominator is positive), and,
  for parallel segments, collinearity plus overlapping projections onto the move;
- a segment enters a circle when the convex quadratic |p - c + t d|^2 - r^2 is negative
  somewhere on [0, 1]: at an end, or at its vertex when the discriminant is positive;
- the sides of the finish come from a normal oriented by the finish's direction.

`LatticeGeometry.move` is the scalar form (with a reason), `valid_moves` and
`finish_codes` the vectorised forms (one Python loop over walls, each wall tested
against every move whose bounding box meets its own). All integer; no floats.
"""

from __future__ import annotations

import numpy as np

from racecert.independent.race_rules import lattice_accels
from racecert.model.lattice.track import LatticeTrack, Point

PLAIN_TOUCH = 1
"""`finish_codes` of a plain finish: 1 when the move touches the finish segment."""


def _dot(a: Point, b: Point) -> int:
    return a[0] * b[0] + a[1] * b[1]


def _cross(a: Point, b: Point) -> int:
    return a[0] * b[1] - a[1] * b[0]


def segments_meet(p: Point, q: Point, a: Point, b: Point) -> bool:
    """The closed segments pq and ab share a point (parametric form, exact integers)."""
    r = (q[0] - p[0], q[1] - p[1])
    s = (b[0] - a[0], b[1] - a[1])
    w = (a[0] - p[0], a[1] - p[1])
    den = _cross(r, s)
    if den != 0:
        tn, un = _cross(w, s), _cross(w, r)
        if den < 0:
            den, tn, un = -den, -tn, -un
        return 0 <= tn <= den and 0 <= un <= den
    if _cross(w, r) != 0 or _cross(w, s) != 0:
        return False  # parallel on two lines (or a point off the other's line)
    if r == (0, 0):
        if s == (0, 0):
            return p == a
        ss = _dot(s, s)
        return 0 <= _dot((p[0] - a[0], p[1] - a[1]), s) <= ss
    rr = _dot(r, r)
    t0, t1 = _dot(w, r), _dot((b[0] - p[0], b[1] - p[1]), r)
    return max(t0, t1) >= 0 and min(t0, t1) <= rr


def segment_in_disc(p: Point, q: Point, c: Point, radius: int) -> bool:
    """Some point of the closed segment pq is strictly inside the circle (c, radius)."""
    d = (q[0] - p[0], q[1] - p[1])
    u = (p[0] - c[0], p[1] - c[1])
    qa, qb, qc = _dot(d, d), _dot(u, d), _dot(u, u) - radius * radius
    if qc < 0 or qa + 2 * qb + qc < 0:
        return True  # an end lies inside
    # the vertex t* = -qb / qa lies strictly inside (0, 1), where the value is negative
    return qa > 0 and 0 < -qb < qa and qb * qb - qa * qc > 0


class LatticeGeometry:
    """Move validity and finish crossings of one lattice track (see the module docstring)."""

    def __init__(self, track: LatticeTrack) -> None:
        self.track = track
        self.walls = [(line[i], line[i + 1]) for line in track.polylines
                      for i in range(len(line) - 1)]
        f = track.finish
        self.normal: Point | None = None
        if f.direction is not None:
            n = (f.a[1] - f.b[1], f.b[0] - f.a[0])
            self.normal = n if _dot(n, f.direction) > 0 else (-n[0], -n[1])

    # -- scalar ---------------------------------------------------------------------------

    def move(self, p: Point, q: Point) -> tuple[bool, str]:
        """Whether p -> q is a valid move, and why not."""
        t = self.track
        if not (0 <= q[0] < t.width and 0 <= q[1] < t.height):
            return False, "leaves the bounds"
        for a, b in self.walls:
            if segments_meet(p, q, a, b):
                return False, f"meets the wall {a}-{b} (local coordinates)"
        for c in t.circles:
            if segment_in_disc(p, q, c.center, c.radius):
                return False, f"enters the circle at {c.center} (local coordinates)"
        return True, "valid"

    def ahead(self, p: Point) -> bool:
        """p on the finish's ahead side or on its line (directed finishes)."""
        assert self.normal is not None
        a = self.track.finish.a
        return _dot(self.normal, (p[0] - a[0], p[1] - a[1])) >= 0

    def finish_code(self, p: Point, q: Point) -> int:
        """Plain finish: 1 when p -> q touches it. Directed: +1 forward, -1 backward, 0."""
        f = self.track.finish
        touch = segments_meet(p, q, f.a, f.b)
        if f.direction is None:
            return PLAIN_TOUCH if touch else 0
        if not touch or self.ahead(p) == self.ahead(q):
            return 0
        return 1 if self.ahead(q) else -1

    def replay(self, positions: list[Point]) -> tuple[bool, str, int | None]:
        """Check a trajectory from rest: every move valid with its acceleration in the
        track's set (`race_rules.lattice_accels`), and where it first finishes. Returns
        (ok, why, moves to the first arrival or None)."""
        f = self.track.finish
        accels = lattice_accels(self.track.accelerations)
        net, vx, vy = 0, 0, 0
        for i in range(1, len(positions)):
            p, q = positions[i - 1], positions[i]
            nvx, nvy = q[0] - p[0], q[1] - p[1]
            if (nvx - vx, nvy - vy) not in accels:
                return False, (f"move {i} accelerates by {(nvx - vx, nvy - vy)}, not in the "
                               f"{self.track.accelerations} set"), None
            ok, why = self.move(p, q)
            if not ok:
                return False, f"move {i} {why}", None
            vx, vy = nvx, nvy
            code = self.finish_code(p, q)
            if f.direction is None or f.laps is None:
                done = code == 1
            else:
                net += code
                done = net == f.laps
            if done:
                return True, f"valid; finishes at move {i}", i
        return True, "valid; does not finish", None

    # -- vectorised -----------------------------------------------------------------------

    def valid_moves(self, px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray
                    ) -> np.ndarray:
        """Per move p -> q (int64 arrays): valid (inside the bounds, no wall, no circle)."""
        t = self.track
        ok = (qx >= 0) & (qx < t.width) & (qy >= 0) & (qy < t.height)
        x0, x1 = np.minimum(px, qx), np.maximum(px, qx)
        y0, y1 = np.minimum(py, qy), np.maximum(py, qy)
        for a, b in self.walls:
            near = np.flatnonzero(ok & (x0 <= max(a[0], b[0])) & (x1 >= min(a[0], b[0]))
                                  & (y0 <= max(a[1], b[1])) & (y1 >= min(a[1], b[1])))
            if len(near):
                ok[near] = ~_meet_v(px[near], py[near], qx[near], qy[near], a, b)
        for c in t.circles:
            live = np.flatnonzero(ok)
            ok[live] = ~_in_disc_v(px[live], py[live], qx[live], qy[live], c.center, c.radius)
        return ok

    def finish_codes(self, px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray
                     ) -> np.ndarray:
        """`finish_code` per move, int64."""
        f = self.track.finish
        touch = _meet_v(px, py, qx, qy, f.a, f.b)
        if f.direction is None:
            return touch.astype(np.int64)
        assert self.normal is not None
        nx, ny = self.normal
        ahead_p = nx * (px - f.a[0]) + ny * (py - f.a[1]) >= 0
        ahead_q = nx * (qx - f.a[0]) + ny * (qy - f.a[1]) >= 0
        code = np.where(ahead_q, 1, -1)
        return np.where(touch & (ahead_p != ahead_q), code, 0).astype(np.int64)


def _meet_v(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, a: Point,
            b: Point) -> np.ndarray:
    """`segments_meet` for many moves and one segment ab."""
    rx, ry = qx - px, qy - py
    sx, sy = b[0] - a[0], b[1] - a[1]
    wx, wy = a[0] - px, a[1] - py
    den = rx * sy - ry * sx
    tn = wx * sy - wy * sx
    un = wx * ry - wy * rx
    sign = np.where(den < 0, -1, 1)
    den, tn, un = den * sign, tn * sign, un * sign
    crossing = (den != 0) & (tn >= 0) & (tn <= den) & (un >= 0) & (un <= den)
    collinear = (den == 0) & (un == 0) & (tn == 0)
    rr = rx * rx + ry * ry
    t0 = wx * rx + wy * ry
    t1 = (b[0] - px) * rx + (b[1] - py) * ry
    overlap = (np.maximum(t0, t1) >= 0) & (np.minimum(t0, t1) <= rr)
    if sx == 0 and sy == 0:
        point = (px == a[0]) & (py == a[1])
    else:
        ss = sx * sx + sy * sy
        along = (px - a[0]) * sx + (py - a[1]) * sy
        point = (along >= 0) & (along <= ss)
    still = rr == 0
    return crossing | (collinear & np.where(still, point, overlap))


def _in_disc_v(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, c: Point,
               radius: int) -> np.ndarray:
    """`segment_in_disc` for many moves and one circle."""
    dx, dy = qx - px, qy - py
    ux, uy = px - c[0], py - c[1]
    qa = dx * dx + dy * dy
    qb = ux * dx + uy * dy
    qc = ux * ux + uy * uy - radius * radius
    ends = (qc < 0) | (qa + 2 * qb + qc < 0)
    vertex = (qa > 0) & (-qb > 0) & (-qb < qa) & (qb * qb - qa * qc > 0)
    return ends | vertex
