"""Independent machinery: re-derives the oracle's figures without sharing its code.

Modules here may import only `racecert.model.track`, `racecert.model.errors` and
each other (never the oracle, the analysis, or the model's geometry, rules, states,
topology or radicals): `make lint` enforces it with import-linter, and
`tests/test_import_contract.py` checks it transitively.

- `geometry`: a second move validity (Liang–Barsky clipping with Fractions, scalar);
- `fastgeom`: a vectorised second geometry in integer arithmetic (touched cells by
  corner signs, entry order by cross-multiplication), batch move validity;
- `search`: an independent layered exploration (exact and editor keys): m*, the
  optimal layered DAG, exact counts by 24-bit limbs;
- `countcheck`: re-checks a count certificate (every count is the sum of its
  predecessors', with Python ints; every move between DAG states is in the DAG);
- `movetable`, `cpsat`, `cpsat_lengths`, `sat`, `drup`: the time-indexed CP-SAT and
  SAT models over move tables of the independent geometry, and the DRUP checker;
- `cpsat_core`: the kinematics core every time-indexed CP-SAT model shares (positions,
  velocities, the acceleration set, the budgeted solve and its status, the witness);
- `radical_forms`, `dag`, `extremes`, `yellow`, `coverage`, `score`, `agreement`: exact
  lengths as coefficient vectors judged by sympy, green/blue with ties over the
  independent DAG, a second least-length (yellow) search, red coverage and the design
  score recomputed from certified inputs, and their comparisons with the oracle's values;
- `laps`, `lap_flood`: the kind and m_cont by the layered search with a continuation
  decider, and a cheap cell flood from beyond the finish that proves a stage where
  nothing leads back to a legal start-then-finish;
- `lattice/`, `cellpath/`: the start-list profiles, one folder each (the profile's own
  geometry or walk, its layered search, its CP-SAT model of m*);
- `interrupt`: Ctrl-C during a CP-SAT or python-sat solve becomes KeyboardInterrupt.
"""
