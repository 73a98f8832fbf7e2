"""The analysis layer: the pipeline, representatives, coverage, score, library, SVG.

`from racecert.analysis import analyze, Analysis` is the grid pipeline; see
`racecert.analysis.pipeline`. Every profile's analysis is a `BaseAnalysis`
(`racecert.analysis.base`), its pipeline found through `racecert.analysis.profiles`.
"""

from racecert.analysis.base import BaseAnalysis
from racecert.analysis.pipeline import Analysis, analyze

__all__ = ["Analysis", "BaseAnalysis", "analyze"]
