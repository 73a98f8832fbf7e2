"""Green/blue DP against an independent time-expanded enumeration (scalar `apply_move`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racecert.analysis.representatives import RepresentativeDP, _extend_terms, _Radicands
from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import ACCELERATIONS, CarState, apply_move
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from tests.oracle.test_dijkstra import rooms


def oracle(track: Track):
    """{'min'|'max': (length, ties, accelerations)} over all arriving trajectories of m* moves.

    Per move count t and full state: the extreme exact length, how many paths
    reach it, and the lexicographically smallest acceleration sequence among them.
    """
    k = track.opening.moves if track.opening else 0
    x, y = track.car.position
    start = CarState(x, y, 0, 0, track.car.layer, 0, 0)
    out = {}
    for name, better in (("min", lambda a, b: a < b), ("max", lambda a, b: b < a)):
        layer = {start: (RadicalSum.zero(), 1, ())}
        for t in range(40):
            nxt: dict = {}
            arrivals = []
            for s, (length, count, seq) in layer.items():
                for i, acc in enumerate(ACCELERATIONS):
                    r = apply_move(track, s, acc)
                    if not r.valid:
                        continue
                    item = (length + RadicalSum.of_vector(r.state.vx, r.state.vy), count,
                            seq + (i,))
                    if r.arrives:
                        arrivals.append(item)
                        continue
                    key = CarState(*r.state.kinematic, r.state.progress, min(t + 1, k))
                    old = nxt.get(key)
                    if old is None or better(item[0], old[0]):
                        nxt[key] = item
                    elif item[0] == old[0]:
                        nxt[key] = (old[0], old[1] + item[1], min(old[2], item[2]))
            if arrivals:
                best = arrivals[0][0]
                for a in arrivals:
                    if better(a[0], best):
                        best = a[0]
                tied = [a for a in arrivals if a[0] == best]
                out[name] = (best, sum(a[1] for a in tied),
                             tuple(ACCELERATIONS[i] for i in min(a[2] for a in tied)))
                break
            layer = nxt
    return out


def check(track: Track) -> None:
    bfs = layered_bfs(track, "exact")
    if not bfs.reachable:
        return
    reps = RepresentativeDP(bfs.dag, track.car.position).select()
    ref = oracle(track)
    for name, ext in (("min", reps.green), ("max", reps.blue)):
        length, ties, accs = ref[name]
        assert ext.length == length
        assert ext.ties == ties
        assert ext.trajectory.accelerations == accs
        assert ext.trajectory.length == length
        assert ext.trajectory.moves == bfs.m_star


def test_bundled_small_tracks() -> None:
    for path in ("tracks/mini_arcen.toml", "tracks/apertura.toml", "tracks/mini_apertura.toml",
                 "tracks/tiny_straight.toml"):
        check(load_track(path))


def test_ties_sum_to_optimal_count_when_all_equal() -> None:
    """tiny_straight has one optimal trajectory: green = blue, one tie each."""
    bfs = layered_bfs(load_track("tracks/tiny_straight.toml"))
    reps = RepresentativeDP(bfs.dag, (1, 1)).select()
    assert reps.green.length == reps.blue.length and str(reps.green.length) == "6"
    assert reps.green.ties == reps.blue.ties == bfs.optimal_count == 1


def test_eligible_filter_restricts_arrivals() -> None:
    t = load_track("tracks/4_esquinas.toml")
    bfs = layered_bfs(t)
    dp = RepresentativeDP(bfs.dag, t.car.position)
    every = dp.select()
    n = len(bfs.dag.arrive_src)
    assert dp.select([False] * n) is None
    only_first = [i == 0 for i in range(n)]
    one = dp.select(only_first)
    assert one.green.ties + 0 <= bfs.arrival_counts[0]
    assert every.green.length <= one.green.length <= one.blue.length <= every.blue.length
    with pytest.raises(ValueError, match="entries for"):
        dp.select([True] * (n + 1))


def test_eligible_arrivals_taken_in_chunks_give_the_same_extremes(monkeypatch) -> None:
    """`select(eligible)` reads the arrivals and the mask a chunk at a time: with chunks of
    seven arrivals, random masks (and ones keeping only the first or the last arrival)
    give the same green and blue as in one chunk."""
    from racecert.analysis import representatives

    t = load_track("tracks/llanura.toml")
    bfs = layered_bfs(t, "exact")
    n = len(bfs.dag.arrive_src)
    rng = np.random.default_rng(7)
    masks = [rng.random(n) < p for p in (0.05, 0.3, 0.7)]
    masks += [np.arange(n) == 0, np.arange(n) == n - 1]
    whole = [RepresentativeDP(bfs.dag, t.car.position).select(m) for m in masks]
    monkeypatch.setattr(representatives, "CHUNK_EDGES", 7)
    assert n > 7 * 3  # several chunks
    small = [RepresentativeDP(bfs.dag, t.car.position).select(m) for m in masks]
    assert small == whole and all(w is not None for w in whole)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_random_rooms(data: bytes) -> None:
    try:
        t = parse_track(data)
    except TrackError:
        return
    check(t)


_MOVE = st.tuples(st.integers(-9, 9), st.integers(-9, 9))


@given(st.lists(st.lists(_MOVE, min_size=1, max_size=6), min_size=1, max_size=6), st.data())
def test_sparse_terms_are_exact_lengths(columns: list[list[tuple[int, int]]],
                                        data: st.DataObject) -> None:
    """`_extend_terms` (the DP's exact values, layer by layer): after every layer, each
    state's (integer part, sparse irrational row) is the exact length (`RadicalSum`) of the
    moves along its representatives, and two states' rows are equal exactly when their
    lengths are. Layer t's states are `columns[t]`'s moves, each extending a drawn state
    of layer t - 1."""
    rad = _Radicands(np.array([vx * vx + vy * vy for c in columns for vx, vy in c],
                              dtype=np.int64))
    none = len(rad.radicands)
    ip = np.zeros(1, dtype=np.int64)
    ic, ik = np.zeros((1, 0), dtype=np.int16), np.zeros((1, 0), dtype=np.int16)
    lengths = [RadicalSum.zero()]
    for moves in columns:
        pred = np.array(data.draw(st.lists(st.integers(0, len(lengths) - 1),
                                           min_size=len(moves), max_size=len(moves))),
                        dtype=np.int32)
        col, k = rad.of(np.array([vx * vx + vy * vy for vx, vy in moves], dtype=np.int64))
        n, w = len(moves), ic.shape[1] + 1
        out = (np.empty(n, dtype=np.int64), np.empty((n, w), dtype=ic.dtype),
               np.empty((n, w), dtype=ik.dtype))
        widest = _extend_terms(ip, ic, ik, pred, col, k, *out, none)
        ip, ic, ik = out
        assert widest <= w and (ic[:, widest:] == none).all()
        lengths = [lengths[p] + RadicalSum.of_vector(vx, vy)
                   for p, (vx, vy) in zip(pred.tolist(), moves, strict=True)]
        for r, length in enumerate(lengths):
            cols = ic[r][ic[r] != none]
            assert (np.diff(cols) > 0).all()  # ascending: one row per value
            terms = [(rad.radicands[c], kk) for c, kk in zip(ic[r].tolist(), ik[r].tolist(),
                                                             strict=True) if c != none]
            assert RadicalSum.from_terms([*terms, (1, int(ip[r]))]) == length
        for a in range(n):
            for b in range(n):
                equal_rows = (ip[a] == ip[b] and (ic[a] == ic[b]).all()
                              and (ik[a] == ik[b]).all())
                assert equal_rows == (lengths[a] == lengths[b])


def test_moves_taken_in_chunks_give_the_same_extremes(monkeypatch) -> None:
    """The DP takes a layer's moves a chunk at a time (`CHUNK_EDGES`, whole groups of moves
    into one state): chunks of a few moves give the same green and blue (lengths, ties,
    trajectories) as one chunk per layer, and the module's doctests hold."""
    import doctest

    from racecert.analysis import representatives

    failures, tries = doctest.testmod(representatives)
    assert tries > 0 and failures == 0
    for name in ("tracks/ocho.toml", "tracks/llanura.toml"):
        bfs = layered_bfs(load_track(name), "exact")
        start = load_track(name).car.position
        whole = RepresentativeDP(bfs.dag, start).select()
        monkeypatch.setattr(representatives, "CHUNK_EDGES", 7)
        assert representatives._dst_chunks(bfs.dag.edges[-1][1], len(bfs.dag.layers[-1]),
                                           7)[1:]  # several chunks
        small = RepresentativeDP(bfs.dag, start).select()
        monkeypatch.undo()
        assert small == whole


def test_extremes_compare_differing_irrational_parts_exactly() -> None:
    """`_Pass._extremes`: in a group whose values have different irrational parts (no
    bundled track has one: equal values have equal rows, so floats order nearly all), the
    exact values decide, least for green and greatest for blue; a group sharing one
    irrational part is decided by the integer parts, ties kept."""
    from racecert.analysis.representatives import _Pass

    root2 = RadicalSum.sqrt_of(2)
    values = [RadicalSum.zero() + 3, root2 + 1, root2 + root2, RadicalSum.zero() + 5,
              RadicalSum.zero() + 5, RadicalSum.zero() + 4]
    rad = _Radicands(np.array([1, 2], dtype=np.int64))  # columns: 1, sqrt(2)
    none = len(rad.radicands)
    ip = np.array([3, 1, 0, 5, 5, 4])
    ic = np.array([[none], [1], [1], [none], [none], [none]], dtype=np.int16)
    ik = np.array([[0], [1], [2], [0], [0], [0]], dtype=np.int16)
    group = np.array([0, 0, 0, 1, 1, 1])
    for sign, expected in ((1, [False, True, False, False, False, True]),
                           (-1, [True, False, False, True, True, False])):
        p = _Pass.__new__(_Pass)
        p.sign, p.rad, p.none = sign, rad, none
        assert [p._sparse_value(r, ip, ic, ik) for r in range(6)] == values
        got = p._extremes(ip, ic, ik, group, 2)
        assert got.tolist() == expected


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(-1, 1),
                          st.integers(-1, 1), st.booleans()), min_size=1, max_size=40),
       st.sampled_from([1, -1]), st.integers(0, 3))
def test_layer_kernels_match_their_definitions(moves: list[tuple[int, int, int, int, bool]],
                                               sign: int, d0: int) -> None:
    """`_near_extremes` and `_choose` (one layer's float extremes and representatives)
    against their definitions in numpy: the least (greatest) candidate f[src] + norm[dst]
    per target dst - d0; the candidates within twice `float_error` of it (the sources'
    values lie up to three times that apart, so some are near and some are not), and which
    of those share their target with another; among the winners, the move of smallest
    (source rank, acceleration `_acc_index`)."""
    from racecert.analysis.representatives import _acc_index, _choose, _near_extremes
    from racecert.oracle.dijkstra import float_error

    moves.sort(key=lambda m: m[0])  # a layer lists its moves by target state
    dst = np.unique([m[0] for m in moves], return_inverse=True)[1].astype(np.int32)
    n = int(dst.max()) + 1  # every target has moves
    dst += np.int32(d0)  # the chunk's first target is d0
    src = np.array([m[1] for m in moves], dtype=np.int32)
    step = float_error(101.0) / 4  # a margin of two errors is 8 steps or more
    f = 100.0 + np.array([0, 1, 5, 12]) * step
    norm = 7.0 * np.arange(n + d0)
    cand = f[src] + norm[dst]
    best, near = np.empty(n), np.empty(len(dst), dtype=np.uint8)
    tied = _near_extremes(f, norm, src, dst, d0, sign, best, near)
    want = np.full(n, np.inf)
    np.minimum.at(want, dst - d0, sign * cand)
    want = sign * want
    assert (best == want).all()
    margin = 2 * float_error(np.abs(want) + 1.0)
    want_near = sign * (cand - want[dst - d0]) <= margin[dst - d0]
    shared = (np.bincount(dst[want_near] - d0, minlength=n) > 1)[dst - d0]
    assert ((near != 0) == want_near).all()
    assert ((near == 2) == (want_near & shared)).all() and tied == int((near == 2).sum())

    rank = np.array([2, 0, 3, 1], dtype=np.int32)
    avx, avy = np.array([0, 1, -1, 2], dtype=np.int32), np.array([0, 0, 1, 1], dtype=np.int32)
    bvx = np.array([0] * d0 + [m[2] for m in moves], dtype=np.int32)  # indexed by dst
    bvy = np.array([0] * d0 + [m[3] for m in moves], dtype=np.int32)
    winners = np.array([m[4] for m in moves]) | want_near
    pred, pacc = np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int16)
    _choose(src, dst, d0, winners, rank, avx, avy, bvx, bvy, pred, pacc)
    acc = _acc_index(bvx[dst] - avx[src], bvy[dst] - avy[src])
    for i in range(n):
        w = [j for j in range(len(dst)) if dst[j] - d0 == i and winners[j]]
        if not w:
            assert pred[i] == -1
            continue
        j = min(w, key=lambda j: (int(rank[src[j]]), int(acc[j])))
        assert (pred[i], pacc[i]) == (src[j], acc[j])


@given(st.lists(st.tuples(st.integers(0, 24), st.booleans()), min_size=1, max_size=30),
       st.lists(st.integers(1, 5), min_size=1, max_size=30), st.sampled_from([1, -1]))
def test_near_least_read_in_parts_is_near_least_of_all(steps: list[tuple[int, bool]],
                                                       sizes: list[int], sign: int) -> None:
    """`_near_least` (the arrivals within the float error of the extreme, read a chunk
    at a time, once) gives the rows of `float_error`'s definition over all the values at
    once, however they are split into parts: values a few errors apart around 1000, some
    near the least and some not, the least sometimes in a later part than the near ones."""
    from racecert.analysis.representatives import _near_least
    from racecert.oracle.dijkstra import float_error

    unit = float_error(1001.0) / 4  # a margin of two errors is 8 units
    values = np.array([sign * 1000.0 + (k if far else k % 9) * unit for k, far in steps])
    rows = np.arange(len(values))
    cuts = np.cumsum(sizes)
    parts = [(rows[a:b], values[a:b]) for a, b in zip([0, *cuts], cuts, strict=False)
             if a < len(values)]
    parts[-1] = (rows[parts[-1][0][0]:], values[parts[-1][0][0]:])  # the rest in the last
    least = values.min()
    want = rows[values - least <= 2 * float_error(abs(least) + 1.0)]
    assert _near_least(parts).tolist() == want.tolist()


def test_tie_counts_switch_to_python_ints_without_changing_anything(monkeypatch) -> None:
    """The tie counts are int64 until a sum could pass `_COUNT_LIMIT`, then Python ints:
    with the limit at 4 (Python ints from the first layers), at 1,000 (a switch part way
    through llanura's 69 layers, whose counts reach 28 digits) and at its default, green
    and blue (lengths, ties, trajectories) are the same, and the ties are Python ints."""
    from racecert.analysis import representatives

    for name in ("tracks/llanura.toml", "tracks/ocho.toml"):
        t = load_track(name)
        bfs = layered_bfs(t, "exact")
        got = []
        for limit in (4, 1000, representatives._COUNT_LIMIT):
            monkeypatch.setattr(representatives, "_COUNT_LIMIT", limit)
            got.append(RepresentativeDP(bfs.dag, t.car.position).select())
        assert got[0] == got[1] == got[2]
        assert type(got[2].green.ties) is int and type(got[2].blue.ties) is int
    assert got[0].green.ties >= 1
