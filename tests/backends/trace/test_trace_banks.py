"""Shared-memory bank conflicts on hand-written traces with hand-derived degrees."""
from __future__ import annotations

import pytest

from verikern.trace import bank_conflicts, TraceFormatError
from trace_helpers import array, event, trace


def _warp_reads(arrs, name, index_of, threads=range(32), block=0, site=1, op="read", interval=0):
    return [event(arrs, name, index_of(t), op, thread=t, block=block, site=site,
                  interval=interval) for t in threads]


@pytest.mark.parametrize("stride, degree", [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1), (64, 32)])
def test_strided_float32(stride, degree):
    arrs = {"sh": array("shared", (32 * 64,))}
    found = bank_conflicts(trace(arrs, _warp_reads(arrs, "sh", lambda t: t * stride)))
    if degree == 1:
        assert found == []
    else:
        (c,) = found
        assert (c.degree, c.conflicted, c.accesses) == (degree, 1, 1)
        assert len(c.words) == degree and all(w % 32 == c.bank for w in c.words)


def test_broadcast_is_no_conflict():
    arrs = {"sh": array("shared", (64,))}
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "sh", lambda t: 0))) == []
    # two words, each broadcast to half the warp, in different banks: no conflict
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "sh", lambda t: t % 2))) == []
    # two words of the same bank: 2-way
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "sh", lambda t: 32 * (t % 2))))
    assert c.degree == 2 and c.words == (0, 32) and c.threads == tuple(range(32))


def test_row_major_32x32_tile_read_by_column_conflicts_32_way():
    arrs = {"tile": array("shared", (32, 32))}
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (t, 5))))
    assert c.degree == 32 and c.bank == 5
    assert c.short() == ("k.py:10:5: warning: 32-way bank conflict on shared array tile "
                         "(read): 1 of 1 warp accesses conflict")
    assert "threads 0, 1, 2" in c.long() and "bank 5" in c.long()


def test_row_major_32x32_tile_read_by_row_is_conflict_free():
    arrs = {"tile": array("shared", (32, 32))}
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (5, t)))) == []


def test_padded_32x33_tile_read_by_column_is_conflict_free():
    arrs = {"tile": array("shared", (32, 33))}
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (t, 5)))) == []


def test_column_major_32x32_tile_read_by_row_conflicts_32_way():
    arrs = {"tile": array("shared", (32, 32), layout="column_major")}
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (5, t))))
    assert c.degree == 32 and c.bank == 5      # offset 5 + 32 * t
    # ...and read by column it is conflict free (offset t + 32 * 5)
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (t, 5)))) == []


def test_column_major_padded_33x32_by_row_is_conflict_free():
    arrs = {"tile": array("shared", (33, 32), layout="column_major")}
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "tile", lambda t: (5, t)))) == []


def test_float64_words_use_itemsize():
    # element e covers word 2e: stride-16 doubles = 32 words apart -> 32-way
    arrs = {"d": array("shared", (1024,), dtype="float64", itemsize=8)}
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "d", lambda t: 16 * t)))
    assert c.degree == 32
    # int8: four elements share one word -> consecutive bytes never conflict
    arrs = {"b": array("shared", (1024,), dtype="int8", itemsize=1)}
    assert bank_conflicts(trace(arrs, _warp_reads(arrs, "b", lambda t: t))) == []
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "b", lambda t: 128 * t)))
    assert c.degree == 32


def test_warps_are_32_consecutive_threads_of_one_block():
    arrs = {"sh": array("shared", (4096,))}
    # threads 0..63 read sh[t]: two warps, each stride 1 -> no conflict
    ev = _warp_reads(arrs, "sh", lambda t: t, threads=range(64))
    assert bank_conflicts(trace(arrs, ev)) == []
    # warp 1 strided by 2 -> only it conflicts; blocks 0 and 1 counted separately
    ev = []
    for b in (0, 1):
        ev += _warp_reads(arrs, "sh", lambda t: t, threads=range(32), block=b)
        ev += _warp_reads(arrs, "sh", lambda t: 2 * t, threads=range(32, 64), block=b)
    (c,) = bank_conflicts(trace(arrs, ev, grid_dim=2))
    assert (c.degree, c.conflicted, c.accesses, c.warp) == (2, 2, 4, 1)


def test_dynamic_executions_are_separate_warp_accesses():
    # a loop runs the same site twice in one interval: sh[t] then sh[t + 32]
    arrs = {"sh": array("shared", (64,))}
    ev = []
    for t in range(32):
        ev.append(event(arrs, "sh", t, "read", thread=t, site=1))
    for t in range(32):
        ev.append(event(arrs, "sh", t + 32, "read", thread=t, site=1))
    assert bank_conflicts(trace(arrs, ev)) == []


def test_sites_are_reported_separately_and_global_arrays_ignored():
    arrs = {"sh": array("shared", (2048,)), "g": array("global", (2048,))}
    ev = _warp_reads(arrs, "sh", lambda t: t, site=1)
    ev += _warp_reads(arrs, "sh", lambda t: 4 * t, site=2, op="write")
    ev += _warp_reads(arrs, "sh", lambda t: 8 * t, site=3, op="atomic")
    ev += _warp_reads(arrs, "g", lambda t: 32 * t, site=4)
    found = bank_conflicts(trace(arrs, ev))
    assert [(c.site, c.op, c.degree) for c in found] == [(2, "write", 4), (3, "atomic", 8)]
    assert found[0].to_json()["words"] == [0, 32, 64, 96]


def test_partial_warp_and_worst_degree():
    arrs = {"sh": array("shared", (4096,))}
    ev = _warp_reads(arrs, "sh", lambda t: 32 * t, threads=range(3), interval=0)
    ev += _warp_reads(arrs, "sh", lambda t: 32 * t, threads=range(7), interval=1)
    (c,) = bank_conflicts(trace(arrs, ev))
    assert (c.degree, c.conflicted, c.accesses, c.interval) == (7, 2, 2, 1)


def test_column_major_with_wrong_rank_is_rejected():
    arrs = {"tile": array("shared", (32, 32), layout="column_major")}
    bad = [event(arrs, "tile", (1, 2), "read", thread=0)]
    bad[0]["index"] = [1, 2, 0]
    with pytest.raises(TraceFormatError, match="column-major"):
        bank_conflicts(trace(arrs, bad))


# ----------------------------------------------------------- brute force
from collections import defaultdict  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

REF_ARRAYS = {"a": array("shared", (8, 16)), "c": array("shared", (8, 16), layout="column_major"),
              "d": array("shared", (64,), dtype="float64", itemsize=8)}


def _reference(tr: dict) -> dict[int, tuple[int, int, int]]:
    """site -> (worst degree, conflicted, accesses), computed event by event."""
    seen = defaultdict(int)
    groups = defaultdict(set)
    for e in tr["events"]:
        info = tr["arrays"][e["array"]]
        if info["space"] != "shared":
            continue
        key = (e["block"], e["thread"], e["interval"], e["site"])
        occ = seen[key]
        seen[key] += 1
        if info["layout"] == "column_major":
            off, stride = 0, 1
            for i, n in zip(e["index"], info["shape"]):
                off += i * stride
                stride *= n
        else:
            off = e["flat"]
        groups[(e["site"], e["block"], e["thread"] // 32, e["interval"], occ)].add(
            off * info["itemsize"] // 4)
    per_site = defaultdict(list)
    for (site, *_), words in groups.items():
        banks = defaultdict(int)
        for w in words:
            banks[w % 32] += 1
        per_site[site].append(max(banks.values()))
    return {s: (max(d), sum(x > 1 for x in d), len(d)) for s, d in per_site.items() if max(d) > 1}


@st.composite
def random_bank_traces(draw):
    evs = []
    for site in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(REF_ARRAYS)))
        shape = REF_ARRAYS[name]["shape"]
        threads = draw(st.lists(st.integers(0, 69), min_size=1, max_size=40))
        for t in threads:
            idx = [draw(st.integers(0, n - 1)) for n in shape]
            evs.append(event(REF_ARRAYS, name, idx, draw(st.sampled_from(["read", "write"])),
                             thread=t, block=draw(st.integers(0, 1)),
                             interval=draw(st.integers(0, 1)), site=site))
    return trace(REF_ARRAYS, evs, block_dim=70, grid_dim=2)


@settings(max_examples=50, deadline=None)
@given(random_bank_traces())
def test_matches_event_by_event_reference(tr):
    got = {c.site: (c.degree, c.conflicted, c.accesses) for c in bank_conflicts(tr)}
    assert got == _reference(tr)
    for c in bank_conflicts(tr):   # the example really is a worst-case warp access
        assert len(c.words) == c.degree and {w % 32 for w in c.words} == {c.bank}


def test_column_major_with_inner_vector_dims():
    # shape (32, 32) of vec2 (inner [2]) column-major: element (i, j) at i + 32 j,
    # scalar k of it at 2 (i + 32 j) + k
    arrs = {"v": dict(array("shared", (32, 32, 2), layout="column_major"), inner=[2])}
    # warp reads v[t, 0, 0]: words 2t -> banks 0, 2, .., 62 % 32: 2-way
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "v", lambda t: (t, 0, 0))))
    assert c.degree == 2 and c.words == (c.bank, c.bank + 32) and c.bank == 0
    # warp reads v[0, t, 1]: words 2 * 32 t + 1 -> all bank 1: 32-way
    (c,) = bank_conflicts(trace(arrs, _warp_reads(arrs, "v", lambda t: (0, t, 1))))
    assert c.degree == 32 and c.bank == 1
