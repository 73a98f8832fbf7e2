"""A brute force for the cell-path rules, written for the tests apart from racecert.

It counts *walks*: `counts[t][state]` is the number of acceleration sequences of t moves
that end in `state` without arriving, for every state (no first-reach layering, no
visited set), so it shares no algorithm with the oracle's BFS nor with the independent
search. m* is the first t with an arriving move; the optimal trajectories are then
enumerated one by one (when there are few) to find the least and greatest lengths, each
length a canonical {squarefree: coefficient} form. The tick cell is found by `divmod`
(round half up), not by the oracle's floor division nor by the independent side's
`Fraction`s.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

State = tuple[int, int, int, int]


def tick(p: int, d: int, k: int, n: int) -> int:
    """p + k*d/n rounded half up."""
    q, r = divmod(k * d, n)
    return p + q + (1 if 2 * r >= n else 0)


def move(rows: list[str], s: State, a: tuple[int, int], cap: int | None
         ) -> tuple[State, bool] | None:
    """(next state, arrives) or None when the move crashes or breaks the cap."""
    x, y, vx, vy = s
    dx, dy = vx + a[0], vy + a[1]
    if cap is not None and max(abs(dx), abs(dy)) > cap:
        return None
    n = max(abs(dx), abs(dy))
    for k in range(1, n + 1):
        cx, cy = tick(x, dx, k, n), tick(y, dy, k, n)
        if not (0 <= cy < len(rows) and 0 <= cx < len(rows[0])) or rows[cy][cx] == "x":
            return None
        if rows[cy][cx] == "g":
            return (cx, cy, dx, dy), True
    return (x + dx, y + dy, dx, dy), False


def squarefree(n: int) -> tuple[int, int]:
    """(c, d) with n = c^2 d, d squarefree."""
    c = 1
    for f in range(2, math.isqrt(n) + 1):
        while n % (f * f) == 0:
            n //= f * f
            c *= f
    return c, n


@dataclass(frozen=True)
class Brute:
    m_star: int | None
    per_start: tuple[int, ...]
    finals: dict[State, int]
    lengths: Counter  # canonical length -> trajectories (None when too many to list)


def brute(rows: list[str], starts: list[tuple[int, int]], a_max: int = 1,
          cap: int | None = None, horizon: int = 12, enumerate_up_to: int = 20_000) -> Brute:
    """Every figure of the profile by walk counting (module docstring)."""
    r = range(-a_max, a_max + 1)
    accs = [(ax, ay) for ax in r for ay in r]
    memo: dict[tuple[State, tuple[int, int]], tuple[State, bool] | None] = {}

    def moved(s: State, a: tuple[int, int]) -> tuple[State, bool] | None:
        """`move` (pure for these rows and cap), each (state, acceleration) worked out once."""
        key = (s, a)
        if key not in memo:
            memo[key] = move(rows, s, a, cap)
        return memo[key]

    layer = [{(x, y, 0, 0): 1} for x, y in starts]  # per start: state -> walks
    for t in range(1, horizon + 1):
        nxt: list[dict[State, int]] = [{} for _ in starts]
        arrived: list[dict[State, int]] = [{} for _ in starts]
        for i, states in enumerate(layer):
            for s, c in states.items():
                for a in accs:
                    m = moved(s, a)
                    if m is None:
                        continue
                    into = arrived[i] if m[1] else nxt[i]
                    into[m[0]] = into.get(m[0], 0) + c
        if any(arrived):
            finals: Counter = Counter()
            for d in arrived:
                finals.update(d)
            total = sum(finals.values())
            lengths = (_lengths(moved, starts, accs, t) if total <= enumerate_up_to
                       else None)
            return Brute(t, tuple(sum(d.values()) for d in arrived), dict(finals), lengths)
        layer = nxt
    return Brute(None, (0,) * len(starts), {}, Counter())


def _lengths(moved, starts, accs, m) -> Counter:
    """Canonical length -> number of optimal trajectories, by listing every one (`moved`:
    the move function)."""
    out: Counter = Counter()

    def go(s: State, depth: int, terms: Counter) -> None:
        for a in accs:
            r = moved(s, a)
            if r is None or r[1] != (depth == m - 1):
                continue
            ddx, ddy = r[0][0] - s[0], r[0][1] - s[1]  # where the move ends: the goal cell
            c, d = squarefree(ddx ** 2 + ddy ** 2) if ddx or ddy else (0, 1)
            t2 = terms.copy()
            if c:
                t2[d] += c
            if r[1]:
                out[frozenset(t2.items())] += 1
            else:
                go(r[0], depth + 1, t2)

    for x, y in starts:
        go((x, y, 0, 0), 0, Counter())
    return out


def value(form: frozenset) -> float:
    return sum(c * math.sqrt(d) for d, c in form)
