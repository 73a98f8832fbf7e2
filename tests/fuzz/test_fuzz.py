"""The fuzzer as a test: its corpus of past crashes, a small seeded run, and the fuzzer's
own ability to notice a broken command line.

Every file in `tests/fuzz/corpus/` once crashed `validate` or `analyze` (a
traceback, an error printed over two lines, an overflow inside the analysis
after the file validated, a malformed SVG, a line no car could cross
accepted); each must now give exactly one `error:` line naming the file and
exit 2 from both commands. The seeded run is small and bounded in count (200
mutants; analyze only on valid mutants of at most 400 cells); the long run
is `python -m tests.fuzz.run --count 5000`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.cli import main
from tests.fuzz.harness import Summary, call, check, fuzz, load_bases
from tests.fuzz.mutate import Mutant, mutant
from tests.strategies import TRACKS

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.toml"))


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 10


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_each_past_crash_is_one_clean_line_and_exit_2(path: Path) -> None:
    lines = set()
    for command in ("validate", "analyze"):
        c = call(main, [command, str(path)])
        assert c.failure is None, c.failure
        assert (c.code, c.out) == (2, "")
        assert c.err.startswith(f"error: {path}") and c.err.endswith("\n")
        assert len(c.err.splitlines()) == 1 and c.err[:-1].isprintable()
        lines.add(c.err)
    assert len(lines) == 1  # both commands give the same line


def test_a_small_seeded_run_finds_nothing(tmp_path: Path) -> None:
    s = fuzz(200, seed=2026, tracks=TRACKS, workdir=tmp_path, analyze_cells=400)
    assert s.findings == [], s.report()
    assert s.mutants == 200 and s.accepted + s.rejected == 200
    # the run must exercise both outcomes and the analysis, or it proves little
    assert s.rejected >= 100 and s.accepted >= 5 and s.analysed >= s.rejected + 3


def test_every_operator_copes_with_every_mutant() -> None:
    # the big run draws 5,000 mutants: their generation alone must never fail
    bases = load_bases(TRACKS)
    for seed in (0, 1, 2):
        for i in range(6000):
            assert isinstance(mutant(i, bases, seed).data, bytes)


def test_mutants_are_reproducible() -> None:
    bases = {"a.toml": (TRACKS / "tiny_straight.toml").read_bytes(),
             "b.toml": (TRACKS / "mini_arcen.toml").read_bytes()}
    first = [mutant(i, bases, seed=5) for i in range(30)]
    assert first == [mutant(i, bases, seed=5) for i in range(30)]
    assert len({m.data for m in first}) > 20  # and they differ from each other
    assert any(m.data != bases[m.base] for m in first)


# -- the harness notices what it should (corruption tests of the fuzzer itself) ------------


def _judge(fake_main, tmp_path: Path) -> list[str]:  # noqa: ANN001
    m = Mutant(0, "x.toml", ("none",), (TRACKS / "tiny_straight.toml").read_bytes())
    return [f.problem for f in check(m, tmp_path, fake_main, None, None, Summary())]


def test_the_harness_flags_a_traceback(tmp_path: Path) -> None:
    def crashing(argv: list[str]) -> int:
        raise OverflowError("Python integer 2147483648 out of bounds for int32")

    assert _judge(crashing, tmp_path) == ["traceback"]


def test_the_harness_flags_a_bad_exit_code_or_two_lines(tmp_path: Path) -> None:
    assert _judge(lambda argv: 3, tmp_path) == ["exit code"]

    def two_lines(argv: list[str]) -> int:
        import sys
        print("error: t.toml: [car].a", file=sys.stderr)
        print("b: unknown key", file=sys.stderr)
        return 2

    assert _judge(two_lines, tmp_path) == ["output"]


def test_the_harness_flags_analyze_refusing_a_valid_track(tmp_path: Path) -> None:
    def picky(argv: list[str]) -> int:
        if argv[0] == "analyze":
            import sys
            print("error: t.toml: too big", file=sys.stderr)
            return 2
        print("ok")
        return 0

    assert _judge(picky, tmp_path) == ["inconsistent"]


def test_the_harness_flags_a_broken_svg(tmp_path: Path) -> None:
    def bad_svg(argv: list[str]) -> int:
        if argv[0] == "analyze":
            Path(argv[argv.index("-o") + 1]).write_text("<svg><text>\x1b</text></svg>")
        print("ok")
        return 0

    assert _judge(bad_svg, tmp_path) == ["svg"]


def test_the_harness_flags_a_hang(tmp_path: Path) -> None:
    def spinning(argv: list[str]) -> int:
        while True:
            pass

    m = Mutant(0, "x.toml", ("none",), b"")
    found = check(m, tmp_path, spinning, None, 0.2, Summary())
    assert [f.problem for f in found] == ["hang"]
