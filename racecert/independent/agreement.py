"""Compare the independent side's figures with the values another side reports.

Each function returns the list of disagreements as one-line texts (empty when
everything agrees). Lengths are compared exactly by sympy
(`RadicalLength.same_as`), counts as Python ints, fractions as `Fraction`s.
"""

from __future__ import annotations

from fractions import Fraction

from racecert.independent.coverage import RedCoverage
from racecert.independent.extremes import ExtremeTrajectory
from racecert.independent.score import DesignScore
from racecert.independent.yellow import YellowTrajectory


def compare_extreme(name: str, mine: ExtremeTrajectory, length: str, ties: int) -> list[str]:
    """green / blue: exact length and exact number of tied optimal trajectories."""
    out = []
    if not mine.length.same_as(length):
        out.append(f"{name} length: independent {mine.length}, reported {length}")
    if mine.ties != int(ties):
        out.append(f"{name} ties: independent {mine.ties}, reported {ties}")
    return out


def compare_yellow(mine: YellowTrajectory, length: str | None, moves: int | None) -> list[str]:
    """yellow: reachability, exact length and number of moves."""
    if not mine.reachable or length is None:
        if mine.reachable != (length is not None):
            return [f"yellow: independent reachable={mine.reachable}, reported "
                    f"{'a trajectory' if length is not None else 'none'}"]
        return []
    assert mine.length is not None
    out = []
    if not mine.length.same_as(length):
        out.append(f"yellow length: independent {mine.length}, reported {length}")
    if mine.moves != moves:
        out.append(f"yellow moves: independent {mine.moves}, reported {moves}")
    return out


def compare_coverage(mine: RedCoverage, red: Fraction, touched: int, drivable: int
                     ) -> list[str]:
    """red coverage: the exact fraction and both cell counts."""
    out = []
    if mine.fraction != Fraction(red):
        out.append(f"coverage: independent {mine.fraction}, reported {red}")
    if len(mine.cells) != touched:
        out.append(f"touched cells: independent {len(mine.cells)}, reported {touched}")
    if mine.drivable != drivable:
        out.append(f"drivable cells: independent {mine.drivable}, reported {drivable}")
    return out


def compare_score(mine: DesignScore, total: Fraction | float, band: str, capped: bool
                  ) -> list[str]:
    """score: the rounded total (to the cent), the band and the cap."""
    out = []
    if mine.total != Fraction(total).limit_denominator(100):
        out.append(f"score: independent {float(mine.total)}, reported {total}")
    if mine.band != band:
        out.append(f"score band: independent {mine.band}, reported {band}")
    if mine.capped != capped:
        out.append(f"score capped: independent {mine.capped}, reported {capped}")
    return out
