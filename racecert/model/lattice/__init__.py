"""The classic lattice rules' model (docs/rules.md, "The lattice profile"): the frozen
track data (`track.py`, read by both sides of the independence contract), the exact
integer geometry (`geometry.py`), the `RuleProfile` of the oracle (`rules.py`) and the
reader of ``rules = "lattice"`` files (`parse.py`).

This package imports nothing itself, so the independent side may read `track` without
loading the rules.
"""
