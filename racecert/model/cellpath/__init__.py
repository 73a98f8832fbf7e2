"""The cell-path rule profile: the Racetrack maps of reinforcement learning (Barto,
Bradtke & Singh 1995) and quantitative model checking (Momba / QComp), deterministic.

`track` holds the data class (read by both sides), `parse` the map and TOML readers
and the writer, `rules` the oracle's `RuleProfile` and the scalar reference
(docs/rules.md, "The cell-path profile"). The modules are imported by name, so that
the independent side can read `track` without importing the rules.
"""
