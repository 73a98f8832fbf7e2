"""Independent machinery: re-derives the oracle's figures without sharing its code.

Modules here may import only numpy, `racecert.model.track`, `racecert.model.errors`,
the verify geometry (`racecert.verify.geometry`, which moves into this package) and
each other — never `racecert.solvers`, `racecert.model.geometry`, `rules`, `states`
or `topology`.

- `fastgeom`: a vectorised second geometry in integer arithmetic (touched cells by
  corner signs, entry order by cross-multiplication), batch move validity.
- `search`: an independent layered exploration (exact and editor keys): m*, the
  optimal layered DAG, exact counts by 24-bit limbs.
- `countcheck`: re-checks a count certificate (every count is the sum of its
  predecessors', with Python ints; every move between DAG states is in the DAG).
"""
