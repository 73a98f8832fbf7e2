"""The analysis layer: the pipeline, representatives, coverage, score, library, SVG.

`from racecert.analysis import analyze, Analysis` is the entry point; see
`racecert.analysis.pipeline`.
"""

from racecert.analysis.pipeline import Analysis, analyze

__all__ = ["Analysis", "analyze"]
