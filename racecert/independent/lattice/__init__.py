"""The independent side of the lattice profile: its own geometry (`geometry`: integer
segment and circle predicates, finish sides by an oriented normal), a layered search
with exact counts per start and the extreme lengths (`search`), and a time-indexed
CP-SAT model of m* over a move table of that geometry (`cpsat`). It reads only the data
of a `racecert.model.lattice.track.LatticeTrack` and shares no code with the oracle's
rules (`racecert.model.lattice.rules`) or geometry (`racecert.model.lattice.geometry`)."""
