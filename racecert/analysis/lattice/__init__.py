"""The analysis of the start-list profiles (lattice and cell-path tracks): `pipeline`
(m*, exact counts per start, green and blue) and `svg` (the picture).

`racecert.analysis.profiles` registers them beside the grid profile.
"""
