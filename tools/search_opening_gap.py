"""Random search for tracks on which the editor key and the exact key disagree (docs/rules.md).

Small walled grids with random walls and a random opening rule; S and F span the whole
height (so both are cuts and S comes first). For each valid track, `layered_bfs` runs
with both keys; disagreements are printed, those on m* first. This is how the mechanism
behind tracks/apertura.toml was found (see tracks/README.md); the track itself was then
drawn by hand around that mechanism.

    .venv/bin/python tools/search_opening_gap.py --seed 3 --tries 2000 --m-star-only
"""

from __future__ import annotations

import argparse
import random
import sys

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.oracle.bfs import layered_bfs


def random_track(rng: random.Random) -> str:
    """TOML text of one random candidate (it may still be invalid: the parser decides)."""
    w, h = rng.choice([(8, 6), (9, 6), (10, 7), (11, 7)])
    density = rng.choice([0.15, 0.25, 0.35])
    grid = [["#"] * w for _ in range(h)]
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            grid[y][x] = "#" if rng.random() < density else "."
    sk = rng.randint(2, 4)
    cx, cy = rng.randint(1, sk), rng.randint(1, h - 2)
    grid[cy][cx] = "."
    rule = [f"moves = {rng.randint(1, 4)}"]
    speed = rng.choice([None, 1, 1, 2])
    if speed:
        rule.append(f"max_speed = {speed}")
    if rng.random() < 0.5 or not speed:
        rule.append("straight = true")
    rows = "\n".join("".join(r) for r in grid)
    return (f'name = "random"\n\n[car]\nposition = [{cx}, {cy}]\ndirection = "+x"\n\n'
            f'[start]\nx = {sk}\ny = [1, {h - 2}]\ndir = "+x"\n\n'
            f'[finish]\nx = {w - 3}\ny = [1, {h - 2}]\ndir = "+x"\n\n'
            f'[opening]\n' + "\n".join(rule) + f'\n\n[map]\nground = """\n{rows}\n"""\n')


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tries", type=int, default=2000)
    p.add_argument("--show", type=int, default=3, help="stop after this many finds")
    p.add_argument("--m-star-only", action="store_true", help="report only m* disagreements")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    found = 0
    for i in range(args.tries):
        text = random_track(rng)
        try:
            track = parse_track(text.encode())
        except TrackError:
            continue
        ed, ex = layered_bfs(track, "editor"), layered_bfs(track, "exact")
        differ = (ed.m_star != ex.m_star) if args.m_star_only else (
            (ed.m_star, ed.optimal_count) != (ex.m_star, ex.optimal_count))
        if differ:
            found += 1
            print(f"# try {i}: editor m*={ed.m_star} count={ed.optimal_count}; "
                  f"exact m*={ex.m_star} count={ex.optimal_count}\n{text}")
            if found >= args.show:
                break
    print(f"{found} disagreement(s) in {i + 1} tries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
