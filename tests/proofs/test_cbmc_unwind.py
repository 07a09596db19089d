"""CBMC's unwinding depth per loop (proofs.deciding.cbmc_unwind) and the loops
the C encoder reports (encoders.c.encode_c): trip bounds against the loops
run in Python over every block size, the depth of main's barrier-interval
loops, and the command line. The real CBMC's numbering of the loops is
checked in tests/proofs/test_cbmc_real.py."""
from __future__ import annotations

import pytest

from verikern.encoders.c import encode_c
from verikern.frontend import compile_source
from verikern.proofs.deciding import cbmc_unwind
from verikern.proofs.deciding.cbmc_unwind import DEFAULT_UNWIND, trip_bounds, unwind_plan

SOURCE = '''
import verikern as vk

@vk.kernel
def halving(x: vk.array(dtype=vk.float32)):
    s = vk.block_dim() // 2
    while s > 0:
        if vk.thread_idx() < s:
            x[0] = 1.0
        vk.sync_threads()
        s //= 2

@vk.kernel
def doubling(x: vk.array(dtype=vk.float32)):
    m = 1
    while m < vk.block_dim():
        x[0] = 1.0
        vk.sync_threads()
        vk.sync_threads()
        m = m * 2

@vk.kernel
def doubling_le(x: vk.array(dtype=vk.float32)):
    m = 1
    while m <= vk.block_dim():
        x[0] = 1.0
        m *= 2

@vk.kernel
def nested(x: vk.array(dtype=vk.float32)):
    k = 2
    while k <= 64:
        j = k // 2
        while j > 0:
            x[0] = 1.0
            vk.sync_threads()
            j //= 2
        k *= 2

@vk.kernel
def ranges(x: vk.array(dtype=vk.float32)):
    for a in range(0, 10, 4):
        x[0] = 1.0
    for b in range(10, 0, -3):
        x[0] = 2.0
    for c in range(vk.thread_idx(), 100, 32):
        x[0] = 3.0

@vk.kernel
def barrier_loops(x: vk.array(dtype=vk.float32), n: vk.int32):
    for a in range(n):
        x[0] = 1.0
        vk.sync_threads()
    for b in range(n):
        if vk.thread_idx() < b:
            vk.sync_threads()
    c = 0
    while c < 5:
        c += 1
        if c == 3:
            continue
        vk.sync_threads()

@vk.kernel
def unbounded(x: vk.array(dtype=vk.float32), n: vk.int32, idx: vk.array(dtype=vk.int32)):
    for a in range(n):
        x[0] = 1.0
    j = idx[0]
    while j > 0:
        j -= 1
    s = 1
    while s > 0:
        s = s + 1
'''


def kernel(name: str):
    return compile_source(SOURCE, "k.py").kernel(name).mir


def bounds(name: str, **launch) -> list[int | None]:
    k = kernel(name)
    got = trip_bounds(k, **launch)
    return [got[lp.header] for lp in k.loops]


def python_trips(start, step, test, blocks=range(1, 1025)):
    """The most iterations of `v = start(B); while test(v, B): v = step(v)`
    over every block size B, run in Python (the reference)."""
    most = 0
    for b in blocks:
        v, n = start(b), 0
        while test(v, b):
            v, n = step(v), n + 1
        most = max(most, n)
    return most


def test_a_block_size_ladder_is_bounded_as_python_runs_it():
    assert bounds("halving") == [python_trips(lambda b: b // 2, lambda v: v // 2,
                                              lambda v, b: v > 0)] == [10]
    assert bounds("doubling") == [python_trips(lambda b: 1, lambda v: 2 * v,
                                               lambda v, b: v < b)] == [10]
    assert bounds("doubling_le") == [python_trips(lambda b: 1, lambda v: 2 * v,
                                                  lambda v, b: v <= b)] == [11]


def test_a_fixed_block_size_narrows_the_ladder():
    assert bounds("halving", block_dim=256) == [python_trips(
        lambda b: b // 2, lambda v: v // 2, lambda v, b: v > 0, blocks=[256])] == [8]
    assert bounds("doubling", block_dim=1) == [0]


def test_an_inner_loop_reads_the_outer_counters_range():
    # k = 2, 4, ..., 64 (6 times); j = k // 2 <= 32 halves to 0 (at most 6 times)
    assert bounds("nested") == [6, 6]


def test_range_loops_with_a_constant_step():
    # range(0, 10, 4): 0 4 8; range(10, 0, -3): 10 7 4 1; range(t, 100, 32) from t = 0: 4
    assert bounds("ranges") == [3, 4, 4]
    assert bounds("ranges", block_dim=8) == [3, 4, 4]


def test_loops_the_kernel_does_not_bound_have_no_bound():
    # a parameter count, a loaded start, a counter that grows away from its test
    assert bounds("unbounded") == [None, None, None]


def test_main_runs_once_per_barrier_interval():
    # halving: 1 + 10 barriers; doubling: 1 + 2 x 10; nested: 1 + 6 x 6
    for name, intervals in (("halving", 11), ("doubling", 21), ("nested", 37)):
        k = kernel(name)
        assert cbmc_unwind.barrier_intervals(k, trip_bounds(k)) == intervals
        plan = unwind_plan(k, encode_c(k).loops)
        assert [(i, n) for i, n, _ in plan.depths if i.startswith("main.")] == [
            ("main.0", intervals), ("main.1", intervals), ("main.2", intervals)]
        assert plan.derived


def test_a_loop_with_a_barrier_on_every_path_is_unwound_twice_per_call():
    """vk_step returns at each barrier, so a loop whose every iteration
    passes one goes back to its header at most once per call: depth 2, read
    off the kernel, whatever its trip count (CBMC counts per call frame;
    test_cbmc_real's halving loop is proved at it). A loop with a path
    around its barrier keeps its trip bound, or the default."""
    assert cbmc_unwind.barrier_every_iteration(kernel("halving")) == {kernel("halving").loops[0].header}
    k = kernel("barrier_loops")
    assert cbmc_unwind.barrier_every_iteration(k) == {k.loops[0].header}
    plan = unwind_plan(k, encode_c(k).loops)
    by_id = {i: (n, d) for i, n, d in plan.depths}
    # range(n) with its barrier: 2 (derived) though n is unbounded; range(n) with a
    # barrier under an `if`: the default; the `continue` skips the barrier once: 5 + 1
    assert [by_id[f"vk_step.{i}"] for i in range(3)] == [(2, True), (DEFAULT_UNWIND, False),
                                                         (6, True)]
    assert by_id["main.0"] == (DEFAULT_UNWIND, False)      # intervals unbounded
    # nested: the inner loop passes a barrier each time, the outer one may skip it
    k = kernel("nested")
    plan = unwind_plan(k, encode_c(k).loops)
    inner = k.loops[1].header
    assert cbmc_unwind.barrier_every_iteration(k) == {inner}
    assert sorted(n for i, n, _ in plan.depths if i.startswith("vk_step")) == [2, 7]


def test_the_blocks_before_a_failed_loop_are_those_its_header_does_not_reach():
    k = kernel("unbounded")         # range(n), then a loop on a loaded start, then one that grows
    plan = unwind_plan(k, encode_c(k).loops)
    assert [h for _, h in plan.headers[:3]] == [lp.header for lp in k.loops]
    reach = {}
    for lp in k.loops:
        seen, todo = set(), [lp.header]
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo.extend(k.block(b).terminator.successors())
        reach[lp.header] = seen
    everything = {b.label for b in k.blocks}
    assert cbmc_unwind.blocks_before(k, plan, ["vk_step.2"]) == everything - reach[k.loops[2].header]
    assert cbmc_unwind.blocks_before(k, plan, ["vk_step.0", "vk_step.2"]) == \
        everything - reach[k.loops[0].header]
    assert k.entry.label in cbmc_unwind.blocks_before(k, plan, ["vk_step.0"])
    # main's intervals not covered, or a goto back to no MIR loop: nothing is before
    assert cbmc_unwind.blocks_before(k, plan, ["vk_step.2", "main.1"]) == frozenset()
    assert cbmc_unwind.blocks_before(k, plan, ["vk_step.9"]) == frozenset()
    assert plan.deeper(4).headers == plan.headers


def test_each_loop_of_the_c_file_gets_its_own_depth():
    k = kernel("ranges")
    loops = encode_c(k).loops
    # one goto back per MIR loop, in the order of the text, then main's three loops
    assert [lp.cbmc_id for lp in loops] == ["vk_step.0", "vk_step.1", "vk_step.2",
                                           "main.0", "main.1", "main.2"]
    assert [lp.header for lp in loops[:3]] == [lp.header for lp in k.loops]
    plan = unwind_plan(k, loops)
    assert plan.argv() == ["--unwind", str(DEFAULT_UNWIND), "--unwindset",
                           "vk_step.0:4,vk_step.1:5,vk_step.2:5,main.0:2,main.1:2,main.2:2"]
    assert plan.deeper(4).depths == plan.depths     # every depth derived: none deepens


def test_a_loop_without_a_bound_gets_the_default_or_the_given_depth():
    k = kernel("unbounded")
    plan = unwind_plan(k, encode_c(k).loops)
    assert not plan.derived
    assert [n for i, n, d in plan.depths if not d] == [DEFAULT_UNWIND] * 3
    given = unwind_plan(k, encode_c(k).loops, default=3)
    assert given.argv()[:2] == ["--unwind", "3"]
    assert [n for i, n, d in given.depths if i.startswith("vk_step")] == [3, 3, 3]
    assert [n for i, n, d in given.deeper(4).depths if i.startswith("vk_step")] == [12, 12, 12]
    # main's loops are derived (no barrier), and stay at 2 when deepened
    assert [n for i, n, d in given.deeper(4).depths if i.startswith("main")] == [2, 2, 2]


@pytest.mark.parametrize("name", ["halving", "doubling", "nested", "ranges", "barrier_loops",
                                  "unbounded"])
def test_the_c_file_lines_of_the_loops_are_their_gotos_and_statements(name):
    enc = encode_c(kernel(name))
    lines = enc.text.split("\n")
    for lp in enc.loops:
        text = lines[lp.line - 1]
        assert ("goto L_" in text) if lp.cbmc_id.startswith("vk_step") else (
            "for (;;)" in text or "while (vk_step" in text), (lp, text)
