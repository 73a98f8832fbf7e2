"""`racecert.analyze` and `racecert.certify` take explicit keyword parameters (issue #22
item 3): each reaches the engine, a misspelt one is a TypeError, and the limits left
at None keep `CertifyContext`'s defaults."""

from __future__ import annotations

import inspect

import pytest

import racecert
from racecert.api import analyze, certify
from racecert.model.budget import StateBudget, StateLimitReached

TINY = "tracks/tiny_straight.toml"


def test_no_catch_all_options() -> None:
    for fn in (analyze, certify):
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, fn.__name__
        assert fn.__doc__ is not None
        for section in ("Parameters", "Returns", "Raises", "Examples"):
            assert f"\n    {section}\n    ---" in fn.__doc__, (fn.__name__, section)


def test_analyze_keywords_reach_the_pipeline() -> None:
    steps: list[str] = []
    layers: list[int] = []
    a = analyze(TINY, step=steps.append, progress=lambda d, f, s: layers.append(d))
    assert a.bfs.m_star == 3 and "bfs" in " ".join(steps).lower() and layers
    with pytest.raises(StateLimitReached):
        analyze(TINY, budget=StateBudget(1))
    with pytest.raises(TypeError):
        analyze(TINY, max_state=10)  # type: ignore[call-arg]


def test_certify_keywords_reach_the_context(tmp_path, monkeypatch) -> None:
    assert certify(TINY, count_limit=100, out_dir=tmp_path).status == "certified"
    import racecert.certification.certificate as engine

    seen: dict[str, object] = {}
    monkeypatch.setattr(engine, "certify", lambda track, **kw: seen.update(kw) or "done")
    assert certify(TINY, count_limit=7, cpsat_budget=2.5, out_dir=str(tmp_path)) == "done"
    limits = {k: v for k, v in seen.items() if k not in ("step", "progress", "work", "budget")}
    assert limits == {"count_limit": 7, "cpsat_budget": 2.5, "out_dir": tmp_path}
    with pytest.raises(TypeError):
        certify(TINY, count_limits=100)  # type: ignore[call-arg]
    assert racecert.certify is certify
