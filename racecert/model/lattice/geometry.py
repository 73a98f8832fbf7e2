"""Exact integer geometry of the lattice profile: orientation tests, no floats.

Every predicate is decided by signs of integer cross and dot products (int64 in the
vectorised forms; local coordinates are bounded by `track.MAX_COORD`, so no
product overflows). The scalar functions are the reference the vectorised ones are
tested against.

- `touches(p, q, a, b)`: the closed segments pq and ab share a point (a crossing, a
  touch at an end or a corner, a collinear overlap; degenerate segments included).
- `enters_disc(p, q, c, r)`: the closed segment pq has a point strictly inside the
  circle of radius r around c (touching the circle is allowed).
- `side(a, b, p)`: the orientation of p relative to the line through a and b.

`WallIndex` buckets wall segments by square tiles so that a move only meets the few
walls near its start (the move's bounding box lies in the tile grown by the move's
reach); moves longer than the reach are tested against every wall.
"""

from __future__ import annotations

import numpy as np

from racecert.model.lattice.track import Point


def orient(a: Point, b: Point, p: Point) -> int:
    """cross(b - a, p - a): > 0 left of a->b (in x-right, y-up terms), 0 collinear.

    >>> orient((0, 0), (2, 0), (1, 1)), orient((0, 0), (2, 0), (5, 0))
    (2, 0)
    """
    return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])


def _in_box(a: Point, b: Point, p: Point) -> bool:
    return (min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def _sgn(v: int) -> int:
    return (v > 0) - (v < 0)


def touches(p: Point, q: Point, a: Point, b: Point) -> bool:
    """Whether the closed segments pq and ab share a point.

    >>> touches((0, 0), (2, 2), (0, 2), (2, 0)), touches((0, 0), (1, 1), (1, 1), (3, 0))
    (True, True)
    >>> touches((0, 0), (4, 0), (1, 0), (2, 0)), touches((0, 0), (1, 0), (2, 0), (3, 0))
    (True, False)
    """
    d1, d2 = _sgn(orient(a, b, p)), _sgn(orient(a, b, q))
    d3, d4 = _sgn(orient(p, q, a)), _sgn(orient(p, q, b))
    if d1 * d2 < 0 and d3 * d4 < 0:
        return True
    return ((d1 == 0 and _in_box(a, b, p)) or (d2 == 0 and _in_box(a, b, q))
            or (d3 == 0 and _in_box(p, q, a)) or (d4 == 0 and _in_box(p, q, b)))


def enters_disc(p: Point, q: Point, c: Point, r: int) -> bool:
    """Whether some point of the closed segment pq lies strictly inside the circle (c, r).

    With u = p - c and d = q - p the squared distance along the segment is
    |u|^2 + 2t u.d + t^2 |d|^2 for t in [0, 1]; its minimum is at an end unless the
    foot of the perpendicular falls inside, where it equals (u x d)^2 / |d|^2.

    >>> enters_disc((-4, 3), (4, 3), (0, 0), 3), enters_disc((-4, 2), (4, 2), (0, 0), 3)
    (False, True)
    """
    ux, uy = p[0] - c[0], p[1] - c[1]
    dx, dy = q[0] - p[0], q[1] - p[1]
    r2 = r * r
    dd = dx * dx + dy * dy
    ud = ux * dx + uy * dy
    if ud >= 0 or dd == 0:
        return ux * ux + uy * uy < r2
    if ud <= -dd:
        return (q[0] - c[0]) ** 2 + (q[1] - c[1]) ** 2 < r2
    cross = ux * dy - uy * dx
    return cross * cross < r2 * dd


# -- vectorised forms ------------------------------------------------------------------


def orient_v(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray,
             px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """`orient` elementwise (broadcasting), int64."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


def touches_v(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray,
              ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """`touches` elementwise (broadcasting); int64 inputs."""
    d1 = np.sign(orient_v(ax, ay, bx, by, px, py))
    d2 = np.sign(orient_v(ax, ay, bx, by, qx, qy))
    d3 = np.sign(orient_v(px, py, qx, qy, ax, ay))
    d4 = np.sign(orient_v(px, py, qx, qy, bx, by))
    hit = (d1 * d2 < 0) & (d3 * d4 < 0)
    hit |= (d1 == 0) & _in_box_v(ax, ay, bx, by, px, py)
    hit |= (d2 == 0) & _in_box_v(ax, ay, bx, by, qx, qy)
    hit |= (d3 == 0) & _in_box_v(px, py, qx, qy, ax, ay)
    hit |= (d4 == 0) & _in_box_v(px, py, qx, qy, bx, by)
    return hit


def _in_box_v(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray,
              px: np.ndarray, py: np.ndarray) -> np.ndarray:
    return ((np.minimum(ax, bx) <= px) & (px <= np.maximum(ax, bx))
            & (np.minimum(ay, by) <= py) & (py <= np.maximum(ay, by)))


def enters_disc_v(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                  cx: int, cy: int, r: int) -> np.ndarray:
    """`enters_disc` for many segments and one circle."""
    ux, uy = px - cx, py - cy
    dx, dy = qx - px, qy - py
    r2 = r * r
    dd = dx * dx + dy * dy
    ud = ux * dx + uy * dy
    at_p = ux * ux + uy * uy < r2
    at_q = (qx - cx) ** 2 + (qy - cy) ** 2 < r2
    cross = ux * dy - uy * dx
    inner = cross * cross < r2 * dd
    return np.where((ud >= 0) | (dd == 0), at_p, np.where(ud <= -dd, at_q, inner))


class WallIndex:
    """Wall segments bucketed by square tiles, at a few scales.

    At a scale (tile, reach), a move from p with |q - p|inf <= reach has its bounding
    box inside p's tile grown by `reach` on every side, so only the walls whose bounding
    box meets that grown tile can touch it: `near[tile]` lists them (padded with -1).
    Each move uses the smallest scale whose reach covers it; faster moves than every
    scale's reach are tested against every wall.
    """

    SCALES = ((8, 8), (32, 32), (128, 128))

    def __init__(self, segments: tuple[tuple[Point, Point], ...], width: int, height: int
                 ) -> None:
        seg = np.array([(a[0], a[1], b[0], b[1]) for a, b in segments],
                       dtype=np.int64).reshape(-1, 4)
        self.ax, self.ay, self.bx, self.by = (seg[:, i].copy() for i in range(4))
        # bounding boxes, with a sentinel at index -1 (the padding) that meets no move
        far = np.array([-(1 << 40)], dtype=np.int64)
        self.lox = np.concatenate([np.minimum(self.ax, self.bx), -far])
        self.hix = np.concatenate([np.maximum(self.ax, self.bx), far])
        self.loy = np.concatenate([np.minimum(self.ay, self.by), -far])
        self.hiy = np.concatenate([np.maximum(self.ay, self.by), far])
        self.levels = [self._level(tile, reach, width, height) for tile, reach in self.SCALES]

    def _level(self, tile: int, reach: int, width: int, height: int
               ) -> tuple[int, int, int, np.ndarray]:
        """(tile, reach, tiles per row, near-wall table) of one scale."""
        nx, ny = -(-width // tile), -(-height // tile)
        lo_x, hi_x = np.minimum(self.ax, self.bx), np.maximum(self.ax, self.bx)
        lo_y, hi_y = np.minimum(self.ay, self.by), np.maximum(self.ay, self.by)
        lists: list[np.ndarray] = []
        for ty in range(ny):
            y0, y1 = ty * tile - reach, (ty + 1) * tile - 1 + reach
            for tx in range(nx):
                x0, x1 = tx * tile - reach, (tx + 1) * tile - 1 + reach
                lists.append(np.flatnonzero((lo_x <= x1) & (hi_x >= x0)
                                            & (lo_y <= y1) & (hi_y >= y0)))
        k = max((len(w) for w in lists), default=0)
        near = np.full((len(lists), max(k, 1)), -1, dtype=np.int64)
        for i, w in enumerate(lists):
            near[i, : len(w)] = w
        return tile, reach, nx, near

    def blocked(self, px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray
                ) -> np.ndarray:
        """Per move p -> q (int64 arrays, p inside the bounds): touches some wall."""
        out = np.zeros(len(px), dtype=bool)
        if len(self.ax) == 0 or len(px) == 0:
            return out
        speed = np.maximum(np.abs(qx - px), np.abs(qy - py))
        done = np.zeros(len(px), dtype=bool)
        for tile, reach, nx, near_walls in self.levels:
            moves = np.flatnonzero(~done & (speed <= reach))
            if not len(moves):
                continue
            done[moves] = True
            cand = near_walls[(py[moves] // tile) * nx + px[moves] // tile]
            out[moves] = self._hits(cand, px[moves], py[moves], qx[moves], qy[moves])
        far = np.flatnonzero(~done)
        if len(far):
            cand = np.broadcast_to(np.arange(len(self.ax)), (len(far), len(self.ax)))
            out[far] = self._hits(cand, px[far], py[far], qx[far], qy[far])
        return out

    def _hits(self, cand: np.ndarray, px: np.ndarray, py: np.ndarray, qx: np.ndarray,
              qy: np.ndarray) -> np.ndarray:
        """Per move: whether one of its candidate walls (row of `cand`, -1: none) touches.

        Bounding boxes first (the padding -1 indexes a sentinel wall far outside every
        box), then the exact test on the few pairs whose boxes meet.
        """
        x0, x1 = np.minimum(px, qx)[:, None], np.maximum(px, qx)[:, None]
        y0, y1 = np.minimum(py, qy)[:, None], np.maximum(py, qy)[:, None]
        meet = ((x0 <= self.hix[cand]) & (x1 >= self.lox[cand])
                & (y0 <= self.hiy[cand]) & (y1 >= self.loy[cand]))
        rows, cols = np.nonzero(meet)
        w = cand[rows, cols]
        hit = touches_v(px[rows], py[rows], qx[rows], qy[rows], self.ax[w], self.ay[w],
                        self.bx[w], self.by[w])
        out = np.zeros(len(px), dtype=bool)
        out[rows[hit]] = True
        return out
