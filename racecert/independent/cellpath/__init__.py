"""The independent side of the cell-path profile: its own walk of a move (exact
`Fraction` rounding) and a plain dictionary-based layered search with exact counts
and the exact shortest and longest optimal trajectories. It reads only the data of a
`racecert.model.cellpath.track.CellPathTrack` and shares no code with the oracle's
rules (`racecert.model.cellpath.rules`) or readers."""
