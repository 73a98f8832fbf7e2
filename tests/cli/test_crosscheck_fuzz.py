"""`racecert crosscheck` on generated and mutated RESULT files: never a traceback.

Hypothesis (derandomized, tests/conftest.py) draws RESULT files three ways:
racecert's own report with random leaves replaced or changed a little, keys
dropped or added;
arbitrary JSON values; and byte-level mutations (flips, cuts, insertions) of
the serialized report. Every run must end with exit status 0, 1 or 2, and a
status 2 with exactly one line on stderr.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from racecert.model.parse import load_track
from tests.cli.test_crosscheck import TRACK, cached_analyze, run

REPORT = cached_analyze(load_track(TRACK)).to_json()

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.integers(),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30),
    st.sampled_from(["3", "\u00b3", "5 + sqrt(2)", "1/3", "3/2", "sqrt(-1)", "exact",
                     "stage", "circuit", f"sqrt({10**30 + 57})", "-0", "1e3", "0x10"]),
)
json_values = st.recursive(
    json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                       st.dictionaries(st.text(max_size=12), inner,
                                                       max_size=4)),
    max_leaves=20)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(REPORT)


def _tweak(value: Any) -> Any:
    """A value of the same type, changed a little (so the schema still accepts it)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 0.9
    if isinstance(value, str):
        return value[:-1] + ("1" if value[-1:] != "1" else "2")
    return value


def _mutate(doc: Any, path: tuple, action: str, new: Any) -> Any:
    """`doc` with the value at `path` replaced, dropped, or a sibling added (unchanged
    when an earlier mutation removed the path)."""
    doc = json.loads(json.dumps(doc))
    parent = doc
    for key in path[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return doc
    last = path[-1]
    if isinstance(parent, dict) and last in parent or isinstance(parent, list) and (
            isinstance(last, int) and last < len(parent)):
        if action == "replace":
            parent[last] = new
        elif action == "tweak":
            parent[last] = _tweak(parent[last])
        elif action == "drop":
            del parent[last]
        elif isinstance(parent, dict):
            parent[f"{last}_extra"] = new
        else:
            parent.append(new)
    return doc


@st.composite
def mutated_reports(draw) -> bytes:
    doc: Any = REPORT
    for _ in range(draw(st.integers(1, 3))):
        doc = _mutate(doc, draw(st.sampled_from(PATHS)),
                      draw(st.sampled_from(["replace", "tweak", "tweak", "drop", "add"])),
                      draw(json_values))
    return json.dumps(doc).encode()


@st.composite
def byte_mutations(draw) -> bytes:
    data = bytearray(json.dumps(REPORT).encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[at:at + draw(st.integers(1, 40))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
    return bytes(data)


results = st.one_of(mutated_reports(), json_values.map(lambda v: json.dumps(v).encode()),
                    byte_mutations())


@given(results)
def test_no_traceback_and_a_documented_exit_status(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "result.json"
        f.write_bytes(data)
        code, out, err = run(f)
    assert code in (0, 1, 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("error: ")
        assert out == ""
    else:
        assert out.rstrip().splitlines()[-1].split(",")[0].endswith("compared")
