"""Atomic tickets, all_in_range on written arrays, and all_sorted
(proofs/deciding/content_facts.py): each fact proves what it should, and is
not applied where it would be unsound (a non-constant increment, an atomic in
a loop, another write to the counter, a narrow counter that wraps, a store
that can break the range, a written sorted array). The simulator is the
independent reference for the launches that show the bugs."""
from __future__ import annotations

import os
import sys
import textwrap

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import HEADER, compile_kernel, prove_src, prove_src_only  # noqa: E402

from verikern import errors  # noqa: E402
from verikern.backends.simulator import simulate  # noqa: E402
from verikern.frontend import compile_source  # noqa: E402
from verikern.inputs import make_inputs  # noqa: E402
from verikern.proofs.deciding.content_facts import ticket_arrays  # noqa: E402
from verikern.proofs.obligations import ObligationKind  # noqa: E402
from verikern.proofs.deciding.prover_context import ProofContext  # noqa: E402
from verikern.runtime import LaunchConfig  # noqa: E402


def _status(obligations, kind: str, at: tuple[int, int]) -> set[str]:
    """The statuses of the `kind` obligations at source position `at`."""
    return {o.status.value for o in obligations
            if o.kind.value == kind and (o.loc.line, o.loc.col) == at}


def _line(src: str, text: str) -> tuple[int, int]:
    """(line, column), 1-based, of `text` in the compiled file (HEADER included)."""
    lines = (HEADER + textwrap.dedent(src)).splitlines()
    return next((i + 1, ln.index(text) + 1) for i, ln in enumerate(lines) if text in ln)


COMPACT = """
@vk.kernel
def compact(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32),
            out: vk.array(dtype=vk.float32){extra_param}):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(out.shape[0] >= vk.launch_dim())
    i = vk.tid()
{body}
"""

TICKET_BODY = """    if i < x.shape[0]:
        if x[i] > 0.0:
            slot = vk.atomic_add(count, 0, {inc})
            out[slot] = x[i]
"""


def _compact(body: str, extra_param: str = "") -> str:
    return COMPACT.format(body=body, extra_param=extra_param)


def test_ticket_slots_are_in_bounds_and_distinct():
    src = _compact(TICKET_BODY.format(inc=1))
    obs = prove_src(src)
    line = _line(src, "out[slot]")
    assert _status(obs, "bounds", line) == {"proved"}
    assert _status(obs, "race", line) == {"proved"}
    k = compile_kernel(src)
    # the simulator agrees on a launch where every thread takes a slot
    n = 96
    arrays = {"x": np.ones(n, np.float32), "count": np.zeros(1, np.int32),
              "out": np.zeros(n, np.float32)}
    simulate(k, LaunchConfig((n,), 32, 3, n), arrays, {})
    assert arrays["count"][0] == n and sorted(arrays["out"]) == [1.0] * n


def test_ticket_with_two_sites_and_increments():
    src = _compact("""    if i < x.shape[0]:
        a = vk.atomic_add(count, 0, 1)
        out[a] = 1.0
        if x[i] > 0.0:
            b = vk.atomic_add(count, 0, 2)
            out[b] = 2.0
""").replace("out.shape[0] >= vk.launch_dim()", "out.shape[0] // 3 >= vk.launch_dim()")
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]


@pytest.mark.parametrize("case, body, extra", [
    ("symbolic increment", TICKET_BODY.format(inc="inc"), ", inc: vk.int32"),
    ("atomic in a loop", """    if i < x.shape[0]:
        for r in range(2):
            slot = vk.atomic_add(count, 0, 1)
            out[slot] = x[i]
""", ""),
    ("plain store to the counter", """    if i == 0:
        count[0] = 0
    if i < x.shape[0]:
        slot = vk.atomic_add(count, 0, 1)
        out[slot] = x[i]
""", ""),
    ("atomic_sub on the counter", """    if i < x.shape[0]:
        slot = vk.atomic_add(count, 0, 1)
        vk.atomic_sub(count, 0, 1)
        out[slot] = x[i]
""", ""),
])
def test_no_ticket_facts_where_unsound(case, body, extra):
    src = _compact(body, extra)
    k = compile_kernel(src)
    assert "count" not in ticket_arrays(k, ProofContext(k, None, None).shape), case
    obs = prove_src(src)
    line = _line(src, "out[slot]")
    assert "proved" not in _status(obs, "bounds", line), case


def test_atomic_in_a_loop_really_overflows():
    """The negative case above is a real bug: two calls per thread."""
    src = _compact("""    if i < x.shape[0]:
        for r in range(2):
            slot = vk.atomic_add(count, 0, 1)
            out[slot] = x[i]
""")
    k = compile_kernel(src)
    arrays = {"x": np.ones(4, np.float32), "count": np.zeros(1, np.int32),
              "out": np.zeros(4, np.float32)}
    with pytest.raises(errors.OutOfBoundsError):
        simulate(k, LaunchConfig((4,), 4, 1, 4), arrays, {})


def test_narrow_counter_wraps_and_slots_repeat():
    """A uint8 counter wraps after 256 calls: tickets of different threads
    may be equal, so the race is not proved (the simulator shows it)."""
    src = """
    @vk.kernel
    def fill(count: vk.array(dtype=vk.uint8), out: vk.array(dtype=vk.int32)):
        vk.requires(count.shape[0] == 1)
        vk.requires(vk.all_in_range(count, vk.uint8(0), vk.uint8(1)))
        vk.requires(out.shape[0] >= vk.launch_dim())
        i = vk.tid()
        slot = vk.atomic_add(count, 0, vk.uint8(1))
        out[int(slot)] = i
    """
    obs = prove_src(src)
    line = _line(src, "out[int(slot)]")
    assert _status(obs, "bounds", line) == {"proved"}
    assert "proved" not in _status(obs, "race", line)
    k = compile_kernel(src)
    arrays = {"count": np.zeros(1, np.uint8), "out": np.full(512, -1, np.int32)}
    simulate(k, LaunchConfig((512,), 256, 2, 512), arrays, {})
    assert (arrays["out"][256:] == -1).all()      # 512 threads wrote 256 slots


UNION_FIND = """
@vk.kernel(block_dim=64)
def jump(parent: vk.array(dtype=vk.int32)):
    vk.requires(parent.shape[0] == vk.launch_dim())
    vk.requires(vk.grid_dim() == 1)
    vk.requires(vk.all_in_range(parent, 0, parent.shape[0]))
    i = vk.tid()
    p = parent[i]
    gp = parent[p]
    vk.sync_threads()
    parent[i] = {stored}
"""


def test_written_array_keeps_its_range():
    src = UNION_FIND.format(stored="gp")
    k = compile_kernel(src)
    ctx = ProofContext(k, None, None)
    assert ctx.content.kept == frozenset({"parent"}) and not ctx.content.notes
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]


def test_an_atomic_add_of_zero_keeps_the_range():
    """An atomic_add whose new value (old + 0) is in range for every old
    value in range keeps the contract (issue 27), and so does the store of
    its old value."""
    src = UNION_FIND.format(stored="vk.atomic_add(parent, i, 0)")
    ctx = ProofContext(compile_kernel(src), None, None)
    assert ctx.content.kept == frozenset({"parent"}) and not ctx.content.notes
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]


@pytest.mark.parametrize("stored", ["gp + 1", "-1", "vk.atomic_add(parent, i, 1)",
                                    "vk.atomic_sub(parent, i, 1)"])
def test_store_that_can_break_the_range_drops_it(stored):
    src = UNION_FIND.format(stored=stored)
    k = compile_kernel(src)
    ctx = ProofContext(k, None, None)
    assert ctx.content.kept == frozenset()
    assert "parent" in ctx.content.notes and "line" in ctx.content.notes["parent"]
    obs = prove_src(src)
    at = _line(src, "parent[p]")
    (bounds,) = [o for o in obs if o.kind.value == "bounds" and (o.loc.line, o.loc.col) == at]
    assert bounds.status.value != "proved"
    assert "is not assumed for the written array parent" in (bounds.reason or "")


CSR = """
@vk.kernel(block_dim=256)
def scale(offsets: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32),
          out: vk.array(dtype=vk.float32)):
    vk.requires(offsets.shape[0] == x.shape[0] + 1)
    vk.requires(vk.all_in_range(offsets, 0, out.shape[0] + 1))
{sorted}
    v = vk.tid()
    if v < x.shape[0]:
        for e in range(offsets[v], offsets[v + 1]):
            out[e] = x[v]
{extra}
"""


def test_sorted_offsets_make_segments_disjoint():
    src = CSR.format(sorted="    vk.requires(vk.all_sorted(offsets))", extra="")
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]


@pytest.mark.parametrize("case, contract, extra", [
    ("no contract", "", ""),
    ("written sorted array", "    vk.requires(vk.all_sorted(offsets))",
     "    if v == 0:\n        offsets[0] = 0"),
])
def test_no_sorted_facts_where_unsound(case, contract, extra):
    """Only the race obligations decided (the bounds ones are not checked here)."""
    src = CSR.format(sorted=contract, extra=extra)
    obs = prove_src_only(src, ObligationKind.RACE)
    line = _line(src, "out[e] = x[v]")
    assert "proved" not in _status(obs, "race", line), case


def test_launch_refuses_unsorted_and_inputs_are_sorted():
    src = CSR.format(sorted="    vk.requires(vk.all_sorted(offsets))", extra="")
    k = compile_kernel(src)
    bad = {"offsets": np.array([0, 2, 1, 2], np.int32), "x": np.zeros(3, np.float32),
           "out": np.zeros(2, np.float32)}
    with pytest.raises(errors.ContractError, match="all_sorted"):
        simulate(k, LaunchConfig((3,), 256, 1, 3), dict(bad), {})
    good = dict(bad, offsets=np.array([0, 1, 1, 2], np.int32))
    simulate(k, LaunchConfig((3,), 256, 1, 3), good, {})
    values = make_inputs(k, (300,), 256, np.random.default_rng(1))
    off = values["offsets"]
    assert (np.diff(off) >= 0).all() and off.min() >= 0
    assert off.max() <= values["out"].shape[0]


def test_inputs_meet_every_range_of_an_array_with_two():
    """CSR offsets bounded by two arrays' lengths (`vk.all_in_range(offsets, 0,
    values.shape[0] + 1)` and `..., out.shape[0] + 1)`, as suggested together):
    generated offsets lie in both ranges, and the launch checking both accepts them."""
    src = HEADER + textwrap.dedent("""
        @vk.kernel
        def k(offsets: vk.array(dtype=vk.int32), values: vk.array(dtype=vk.float32),
              out: vk.array(dtype=vk.float32)):
            vk.requires(vk.launch_dim() < offsets.shape[0])
            vk.requires(vk.all_in_range(offsets, 0, values.shape[0] + 1))
            vk.requires(vk.all_in_range(offsets, 0, out.shape[0] - 5))
            vk.requires(vk.all_sorted(offsets))
            s = vk.tid()
            for j in range(offsets[s], offsets[s + 1]):
                out[j] = values[j]
        """)
    k = compile_kernel(src)
    for seed in range(3):
        values = make_inputs(k, (40,), 32, np.random.default_rng(seed),
                             sizes={"offsets": (41,), "values": (10,), "out": (60,)})
        off = values["offsets"]
        assert off.min() >= 0 and off.max() <= 10 and (np.diff(off) >= 0).all()
        values = make_inputs(k, (40,), 32, np.random.default_rng(seed),
                             sizes={"offsets": (41,), "values": (60,), "out": (12,)})
        off = values["offsets"]
        assert off.min() >= 0 and off.max() < 12 - 5
        simulate(k, LaunchConfig((40,), 32, 2, 40), dict(values), {})


def test_all_sorted_needs_a_1d_integer_array():
    res = compile_source(HEADER + "@vk.kernel\ndef k(a: vk.array(dtype=vk.int32, ndim=2)):\n"
                         "    vk.requires(vk.all_sorted(a))\n", "<t>")
    err = res.kernels[0].error
    assert err is not None and err.rule == "contract-array" and "one-dimensional" in str(err)


def test_hypothesis_launches_draw_sorted_offsets():
    from hypothesis import given, settings

    from verikern.testing.strategies import launches

    k = compile_kernel(CSR.format(sorted="    vk.requires(vk.all_sorted(offsets))", extra=""))
    seen = []

    @settings(max_examples=12, deadline=None, database=None)
    @given(launches(k))
    def check(launch):
        off = launch.values["offsets"]
        assert (np.diff(off.astype(np.int64)) >= 0).all(), off
        seen.append(off.size)

    check()
    assert max(seen) >= 3          # some draws have offsets to order


BUCKETS = """
@vk.kernel
def bucket(keys: vk.array(dtype=vk.int32), fill: vk.array(dtype=vk.int32),
           out: vk.array(dtype=vk.int32, ndim={ndim})):
    vk.requires(vk.all_in_range(keys, 0, fill.shape[0]))
    vk.requires(vk.all_in_range(fill, 0, 1))
    vk.requires(out.shape[0] == fill.shape[0])
    vk.requires(out.shape[{last}] >= vk.launch_dim())
    i = vk.tid()
    if i < keys.shape[0]:
        b = keys[i]
        slot = vk.atomic_add(fill, b, 1)
        {store} = i
"""


def test_tickets_are_distinct_per_counter_element_only():
    """One counter per bucket: slots are distinct within a bucket (out[b,
    slot] is race-free) but two buckets hand out the same slot numbers, so a
    1-d out[slot] races, and the prover must not claim otherwise."""
    per_bucket = BUCKETS.format(ndim=2, last=1, store="out[b, slot]")
    obs = prove_src(per_bucket)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]
    shared_out = BUCKETS.format(ndim=1, last=0, store="out[slot]")
    obs = prove_src(shared_out)
    assert "proved" not in _status(obs, "race", _line(shared_out, "out[slot]"))
    k = compile_kernel(shared_out)
    arrays = {"keys": np.array([0, 1], np.int32), "fill": np.zeros(2, np.int32),
              "out": np.full(2, -1, np.int32)}
    simulate(k, LaunchConfig((2,), 2, 1, 2), arrays, {})
    assert list(arrays["fill"]) == [1, 1] and arrays["out"][1] == -1   # both wrote out[0]


RELABEL = """
@vk.kernel(block_dim=64)
def relabel(label: vk.array(dtype=vk.int32)):
    vk.requires(label.shape[0] == vk.launch_dim())
    vk.requires(vk.grid_dim() == 1)
    vk.requires(vk.all_in_range(label, 0, label.shape[0]))
    i = vk.tid()
    r = label[i]
    for k in range(4):
        r = {step}
    vk.sync_threads()
    label[i] = r
"""


def test_loop_of_loads_keeps_the_range():
    """r = label[r] four times: the loop phi only ever holds loaded labels,
    so the final store keeps all_in_range; numpy's pointer chase agrees."""
    src = RELABEL.format(step="label[r]")
    k = compile_kernel(src)
    assert ProofContext(k, None, None).content.kept == frozenset({"label"})
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]
    rng = np.random.default_rng(3)
    label = rng.integers(0, 64, 64).astype(np.int32)
    arrays = {"label": label.copy()}
    simulate(k, LaunchConfig((64,), 64, 1, 64), arrays, {})
    expect = np.array([label[label[label[label[label[i]]]]] for i in range(64)], np.int32)
    assert (arrays["label"] == expect).all()


@pytest.mark.parametrize("step", ["label[r] + 1", "label[r] - 1"])
def test_loop_with_other_values_does_not_keep_the_range(step):
    src = RELABEL.format(step=step)
    k = compile_kernel(src)
    ctx = ProofContext(k, None, None)
    assert ctx.content.kept == frozenset() and "label" in ctx.content.notes


def test_atomic_min_keeps_the_range_and_its_old_value_is_in_it():
    src = """
    @vk.kernel
    def hook(parent: vk.array(dtype=vk.int32), other: vk.array(dtype=vk.int32),
             out: vk.array(dtype=vk.int32)):
        vk.requires(vk.all_in_range(parent, 0, parent.shape[0]))
        vk.requires(vk.all_in_range(other, 0, parent.shape[0]))
        vk.requires(out.shape[0] == parent.shape[0])
        vk.requires(other.shape[0] == parent.shape[0])
        i = vk.tid()
        if i < parent.shape[0]:
            old = vk.atomic_min(parent, i, other[i])
            out[old] = 1
    """
    k = compile_kernel(src)
    assert ProofContext(k, None, None).content.kept == frozenset({"parent"})
    obs = prove_src(src)
    assert _status(obs, "bounds", _line(src, "out[old]")) == {"proved"}
    # without the contract on the value stored, parent's range is not kept
    loose = src.replace("vk.all_in_range(other, 0, parent.shape[0])", "other.shape[0] >= 0")
    obs = prove_src(loose)
    assert "proved" not in _status(obs, "bounds", _line(loose, "out[old]"))


def test_strictly_increasing_models_leave_room_and_replay_fills_them():
    """all_sorted with all_distinct: the prover's model contents must extend
    to a whole strictly increasing array in range, and replay's fill does so
    (otherwise an exact model could be refused by the launch)."""
    from verikern.proofs.confirming.replay_launch import _fill_contracts

    src = """
    @vk.kernel
    def pick(rows: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(vk.all_sorted(rows))
        vk.requires(vk.all_distinct(rows))
        vk.requires(vk.all_in_range(rows, 0, out.shape[0]))
        vk.requires(rows.shape[0] >= 6)
        out[rows[5]] = rows[0]
        assert rows[5] - rows[0] >= 5
        assert rows[5] <= out.shape[0] - rows.shape[0] + 5
    """
    # only its assert obligations decided (the kernel's race, not checked here, costs
    # twice as much as they do)
    obs = prove_src_only(src, ObligationKind.ASSERT)
    asserts = [o for o in obs if o.kind.value == "assert"]
    assert len(asserts) == 2 and {o.status.value for o in asserts} == {"proved"}, \
        [o.message for o in obs]
    k = compile_kernel(src)
    ref = k.params[0]
    arr = np.zeros(8, np.int32)
    arr[2], arr[5] = 4, 9
    _fill_contracts(k, arr, ref, {2, 5}, {})
    assert (np.diff(arr) > 0).all() and arr.min() >= 0 and arr[2] == 4 and arr[5] == 9


NARROW_BY_SHAPE = """
@vk.kernel
def compact16(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int16),
              out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] <= LIMIT)
    vk.requires(out.shape[0] == x.shape[0])
    TID
    if i < x.shape[0]:
        if x[i] >= 0.0:
            slot = vk.atomic_add(count, 0, vk.int16(1))
            out[slot] = x[i]
"""


def _narrow(limit: int, tid: str = "i = vk.tid()") -> str:
    return NARROW_BY_SHAPE.replace("LIMIT", str(limit)).replace("TID", tid)


def test_an_int16_counter_whose_callers_a_length_bounds_is_proved_on_any_launch():
    """At most x.shape[0] <= 32767 threads (linear ids below it) take a
    slot, whatever the launch: the old values 0..32766 never wrap (unknown
    before, issue 27: the ticket facts bounded the calls by the launch)."""
    src = _narrow(32767)
    obs = prove_src(src)
    line = _line(src, "out[slot]")
    assert _status(obs, "bounds", line) == {"proved"}
    assert _status(obs, "race", line) == {"proved"}


def test_a_bound_two_past_the_counter_fails_and_the_simulator_shows_it():
    """32,769 callers: the last gets -32768 (the bound admits k = 32768)."""
    src = _narrow(32769)
    obs = prove_src(src)
    assert _status(obs, "bounds", _line(src, "out[slot]")) == {"failed"}
    n = 32769
    arrays = {"x": np.zeros(n, np.float32), "count": np.zeros(1, np.int16),
              "out": np.zeros(n, np.float32)}
    with pytest.raises(errors.OutOfBoundsError):
        simulate(compile_kernel(src), LaunchConfig((n,), 256, (n + 255) // 256, n), arrays, {})


def test_a_row_guard_of_a_2d_launch_bounds_no_caller_count():
    """`i < x.shape[0]` for the row i of a 2-D launch: every thread of a row
    takes a slot, so the calls are not bounded by the length (the linear id
    is not below it): not proved (only the bounds obligations decided: the
    kernel's race obligation, not checked here, costs ten times as much), and
    the simulator shows a slot past out."""
    src = _narrow(32767, "i, j = vk.tid()")
    at = _line(src, "out[slot]")
    obs = prove_src_only(src, ObligationKind.BOUNDS)
    assert _status(obs, "bounds", at) and "proved" not in _status(obs, "bounds", at)
    arrays = {"x": np.zeros(1, np.float32), "count": np.zeros(1, np.int16),
              "out": np.zeros(1, np.float32)}
    with pytest.raises(errors.OutOfBoundsError):
        simulate(compile_kernel(src), LaunchConfig((1, 2), 2, 1, 2), arrays, {})


#: A run-length loop over each thread's chunk of `per_thread` elements, 4 (a symbolic chunk
#: made the loop invariants' queries, and the proofs, twice as dear; the range facts below
#: are checked the same: dropping them, or taking every phi into the range, fails the tests)
RUNS = """
@vk.kernel
def count_runs(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32,
               per_thread: vk.int32):
    vk.requires(n <= idx.shape[0] and per_thread == 4)
    vk.requires(vk.int64(vk.launch_dim()) * vk.int64(per_thread) <= vk.int64(2147483647))
    vk.requires(vk.all_in_range(idx, 0, out.shape[0]))
    t = vk.tid()
    start = t * per_thread
    if start >= n:
        return
    end = vk.min(start + per_thread, n)
    s_cur = idx[start]
    count = vk.int32(1)
    for i in range(start + 1, end):
        s = idx[i]
        if s == s_cur:
            count = count + vk.int32(1)
        else:
            vk.atomic_add(out, s_cur, count)
            s_cur = {next_segment}
            count = vk.int32(1)
    vk.atomic_add(out, s_cur, count)
"""


def test_a_run_length_loop_keeps_its_segment_in_the_contract_range():
    """The current segment `s_cur` of a run-length loop is a loop phi fed by
    loads of a never-written array with `all_in_range` (through the merge of
    the body's `if`: two phis feeding each other), so it stays in the range
    in every iteration: `out[s_cur]` is proved inside and after the loop."""
    src = RUNS.format(next_segment="s")
    obs = prove_src(src)
    assert {o.status.value for o in obs} == {"proved"}, [o.message for o in obs]


@pytest.mark.parametrize("next_segment", ["s + 1", "i"])
def test_a_run_length_segment_not_only_loaded_gets_no_range(next_segment):
    """Near misses: a phi that also takes a value no load returned (`s + 1`,
    the loop counter) has no range fact, and the atomic after the loop is
    not proved (`s + 1` may equal the length; `i` may exceed it)."""
    src = RUNS.format(next_segment=next_segment)
    obs = prove_src(src)
    lines = (HEADER + textwrap.dedent(src)).splitlines()
    last = max(i + 1 for i, ln in enumerate(lines) if "vk.atomic_add(out, s_cur, count)" in ln)
    after = {o.status.value for o in obs if o.kind.value == "bounds" and o.loc.line == last}
    assert after and "proved" not in after, [o.message for o in obs]
