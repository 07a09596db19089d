"""Race detection on hand-written traces, checked against hand-derived answers
and against a brute-force pairwise reference."""
from __future__ import annotations

import itertools
import json
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from verikern.trace import Race, TraceFormatError, find_races, load_trace
from trace_helpers import array, event, trace

SH = {"sh": array("shared", (64,))}
GL = {"out": array("global", (64,))}


def test_spec_example_short_form():
    ev = [event(SH, "sh", 4, "write", thread=3, interval=1, line=7, col=9, site=1),
          event(SH, "sh", 4, "read", thread=4, interval=1, line=8, col=13, site=2)]
    races = find_races(trace(SH, ev))
    assert len(races) == 1
    r = races[0]
    assert r.short() == ("k.py:7:9: error: race on sh[4]: thread 3 (write) and thread 4 "
                         "(read) of block 0 between barriers 1 and 2")
    assert (r.other_line, r.other_col, r.kind, r.count) == (8, 13, "intra-block", 1)
    assert "second access (read) at k.py:8:13" in r.long()


def test_write_is_shown_first_even_when_read_comes_first():
    ev = [event(SH, "sh", 4, "read", thread=4, line=8, site=0),
          event(SH, "sh", 4, "write", thread=3, line=7, site=1)]
    (r,) = find_races(trace(SH, ev))
    assert (r.op, r.thread, r.line, r.other_op, r.other_thread) == ("write", 3, 7, "read", 4)


def test_barrier_between_accesses_is_no_race():
    ev = [event(SH, "sh", 4, "write", thread=3, interval=0, site=1),
          event(SH, "sh", 4, "read", thread=4, interval=1, site=2)]
    assert find_races(trace(SH, ev)) == []


def test_same_thread_is_no_race():
    ev = [event(SH, "sh", 4, "write", thread=3, site=1),
          event(SH, "sh", 4, "read", thread=3, site=2),
          event(SH, "sh", 4, "write", thread=3, site=1)]
    assert find_races(trace(SH, ev)) == []


def test_reads_only_is_no_race():
    ev = [event(SH, "sh", 0, "read", thread=t, site=1) for t in range(32)]
    assert find_races(trace(SH, ev)) == []


def test_different_elements_no_race():
    ev = [event(SH, "sh", t, "write", thread=t, site=1) for t in range(32)]
    ev += [event(SH, "sh", t, "read", thread=t, site=2) for t in range(32)]
    assert find_races(trace(SH, ev)) == []


def test_shared_arrays_of_different_blocks_never_race():
    ev = [event(SH, "sh", 4, "write", thread=0, block=0, site=1),
          event(SH, "sh", 4, "write", thread=0, block=1, site=1),
          event(SH, "sh", 4, "read", thread=1, block=2, site=2)]
    assert find_races(trace(SH, ev, grid_dim=3)) == []


def test_global_arrays_of_different_blocks_race_in_any_interval():
    ev = [event(GL, "out", 0, "write", thread=0, block=0, interval=0, site=1, line=5),
          event(GL, "out", 0, "read", thread=0, block=1, interval=3, site=2, line=6)]
    (r,) = find_races(trace(GL, ev, grid_dim=2))
    assert r.kind == "inter-block"
    assert (r.block, r.other_block, r.op, r.other_op) == (0, 1, "write", "read")
    assert "thread 0 of block 0 (write) and thread 0 of block 1 (read)" in r.short()


def test_atomic_against_plain_read_races():
    ev = [event(SH, "sh", 0, "atomic", thread=t, site=1) for t in range(4)]
    ev.append(event(SH, "sh", 0, "read", thread=7, site=2))
    (r,) = find_races(trace(SH, ev))
    assert (r.op, r.other_op, r.other_thread) == ("atomic", "read", 7)


def test_atomic_against_atomic_is_no_race():
    ev = [event(GL, "out", 0, "atomic", thread=t % 256, block=t // 256, site=s)
          for t in range(600) for s in (1, 2)]
    assert find_races(trace(GL, ev, grid_dim=3)) == []


def test_atomic_against_plain_write_of_other_block_races():
    ev = [event(GL, "out", 3, "atomic", thread=1, block=0, site=1),
          event(GL, "out", 3, "write", thread=1, block=1, site=2)]
    (r,) = find_races(trace(GL, ev, grid_dim=2))
    assert (r.kind, r.op, r.other_op) == ("inter-block", "write", "atomic")


def test_same_site_many_writers_single_finding_with_count():
    # every thread of blocks 0 and 1 writes out[t % 4] from one site
    ev = [event(GL, "out", t % 4, "write", thread=t, block=b, site=3)
          for b in range(2) for t in range(64)]
    races = find_races(trace(GL, ev, grid_dim=2))
    kinds = sorted((r.kind, r.site, r.other_site, r.count) for r in races)
    # 4 elements x 2 blocks intra-block instances; 4 elements inter-block
    assert kinds == [("inter-block", 3, 3, 4), ("intra-block", 3, 3, 8)]
    intra = [r for r in races if r.kind == "intra-block"][0]
    assert intra.thread != intra.other_thread and intra.block == intra.other_block


def test_one_finding_per_site_pair():
    ev = []
    for t in range(1, 33):   # thread t writes sh[t] (site 1) and reads sh[t-1] (site 2)
        ev.append(event(SH, "sh", t, "write", thread=t, site=1, line=3))
        ev.append(event(SH, "sh", t - 1, "read", thread=t, site=2, line=4))
    races = find_races(trace(SH, ev))
    assert len(races) == 1
    assert races[0].count == 31     # sh[1..31] are both written and read by others
    assert (races[0].line, races[0].other_line) == (3, 4)


def test_2d_index_is_rendered():
    arrs = {"tile": array("shared", (4, 8))}
    ev = [event(arrs, "tile", (1, 2), "write", thread=0, site=1),
          event(arrs, "tile", (1, 2), "write", thread=1, site=1)]
    (r,) = find_races(trace(arrs, ev))
    assert "race on tile[1, 2]" in r.short() and r.index == (1, 2) and r.flat == 10


def test_load_from_path_and_file_override(tmp_path):
    ev = [event(SH, "sh", 4, "write", thread=3, site=1),
          event(SH, "sh", 4, "write", thread=5, site=1)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(trace(SH, ev)))
    (r,) = find_races(str(p), file="other.py")
    assert r.file == "other.py" and r.short().startswith("other.py:10:5: error:")
    assert load_trace(p).n_events == 2
    assert json.loads(json.dumps(r.to_json()))["index"] == [4]


@pytest.mark.parametrize("bad, needle", [
    ({"kernel": "k"}, "verikern_trace"),
    ({"verikern_trace": 1, "dims": [1], "block_dim": 1, "arrays": {}}, "incomplete"),
    (trace(SH, [dict(event(SH, "sh", 0, "write", 0), array="nope")]), "nope"),
    (trace(SH, [dict(event(SH, "sh", 0, "write", 0), op="poke")]), "poke"),
])
def test_malformed_traces_raise_clear_errors(bad, needle):
    with pytest.raises(TraceFormatError, match=needle):
        find_races(bad)


def test_unreadable_path(tmp_path):
    with pytest.raises(TraceFormatError, match="cannot read trace"):
        load_trace(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(TraceFormatError, match="not a JSON trace"):
        load_trace(tmp_path / "bad.json")


# ----------------------------------------------------------- brute force
def _brute_force(tr: dict) -> dict[tuple, int]:
    """(kind, array, site_lo, site_hi) -> racing instance count, by checking all pairs."""
    evs = tr["events"]
    found: dict[tuple, set] = {}
    for a, b in itertools.combinations(evs, 2):
        if a["array"] != b["array"] or a["flat"] != b["flat"]:
            continue
        if (a["thread"], a["block"]) == (b["thread"], b["block"]):
            continue
        if "write" not in (a["op"], b["op"]) and not (
                "atomic" in (a["op"], b["op"]) and "read" in (a["op"], b["op"])):
            continue
        if a["block"] == b["block"]:
            if a["interval"] != b["interval"]:
                continue
            kind, inst = "intra-block", (a["flat"], a["block"], a["interval"])
        elif a["space"] == "global":
            kind, inst = "inter-block", (a["flat"],)
        else:
            continue
        key = (kind, a["array"], min(a["site"], b["site"]), max(a["site"], b["site"]))
        found.setdefault(key, set()).add(inst)
    return {k: len(v) for k, v in found.items()}


SITE_OPS = {0: "read", 1: "write", 2: "atomic", 3: "read", 4: "atomic"}
MIXED = {"sh": array("shared", (4,)), "out": array("global", (4,))}


EVENT_FIELDS = st.tuples(st.integers(0, 4), st.sampled_from(["sh", "out"]), st.integers(0, 3),
                         st.integers(0, 3), st.integers(0, 2), st.integers(0, 2))


@st.composite
def random_traces(draw):
    evs = [event(MIXED, name, element, SITE_OPS[site], thread=thread, block=block,
                 interval=interval, site=site + (10 if name == "out" else 0))
           for site, name, element, thread, block, interval
           in draw(st.lists(EVENT_FIELDS, max_size=40))]
    return trace(MIXED, evs, block_dim=4, grid_dim=3)


@settings(max_examples=60, deadline=None)
@given(random_traces())
def test_matches_brute_force_reference(tr):
    got = {(r.kind, r.array, min(r.site, r.other_site), max(r.site, r.other_site)): r.count
           for r in find_races(tr)}
    assert got == _brute_force(tr)
    for r in find_races(tr):   # every example is itself a genuine race
        assert (r.thread, r.block) != (r.other_thread, r.other_block)
        assert "write" in (r.op, r.other_op) or {r.op, r.other_op} == {"atomic", "read"}
        if r.kind == "intra-block":
            assert r.block == r.other_block and r.interval == r.other_interval
        else:
            assert r.block != r.other_block and r.space == "global"


def test_large_trace_is_fast():
    # 8 blocks x 256 threads x 30 accesses = 61440 events, race-free except one pair
    n_blocks, bd, reps = 8, 256, 30
    t = np.tile(np.arange(bd), n_blocks * reps)
    b = np.repeat(np.arange(n_blocks), bd)[None, :].repeat(reps, 0).ravel()
    arrs = {"sh": array("shared", (bd,)), "g": array("global", (n_blocks * bd,))}
    evs = [{"thread": int(ti), "block": int(bi), "interval": k % 3, "space": "shared",
            "array": "sh", "index": [int(ti)], "flat": int(ti), "op": "write" if k % 2 else "read",
            "line": 3, "col": 1, "site": k % 2}
           for k, (ti, bi) in enumerate(zip(t, b))]
    evs.append({"thread": 5, "block": 2, "interval": 0, "space": "global", "array": "g",
                "index": [7], "flat": 7, "op": "write", "line": 9, "col": 1, "site": 9})
    evs.append({"thread": 5, "block": 3, "interval": 0, "space": "global", "array": "g",
                "index": [7], "flat": 7, "op": "read", "line": 9, "col": 1, "site": 8})
    start = time.perf_counter()
    races = find_races(trace(arrs, evs, block_dim=bd, grid_dim=n_blocks))
    assert time.perf_counter() - start < 30.0   # a pairwise scan would take hours
    assert [(r.kind, r.array) for r in races] == [("inter-block", "g")]
    assert isinstance(races[0], Race)


def test_empty_trace():
    tr = trace(SH, [])
    assert find_races(tr) == [] and load_trace(tr).n_events == 0
    from verikern.trace import bank_conflicts
    assert bank_conflicts(tr) == []
