"""A mutation fuzzer for track files, as a test tool.

`mutate.py` holds the mutation operators, `harness.py` runs the command line
in-process on each mutant and judges exit codes and output, `run.py` is the
entry point for long runs (`python -m tests.fuzz.run --count 5000`), and
`corpus/` keeps the crashing inputs found, each asserted by `test_fuzz.py`
to give one clean line and exit 2.
"""
