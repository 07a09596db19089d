"""Loop peeling (verikern.mir.passes.peel): the peeled kernel is valid MIR,
describes its loops correctly, maps every site back, and the simulator runs
it exactly like the original (same results, same errors at the same line)."""
import numpy as np
import pytest

import verikern.errors as errors
from verikern.mir.nodes import Assert, Barrier, Load
from verikern.mir.passes.peel import peel_loops
from verikern.mir.verifier import verify
from verikern.runtime import launch

from shared_helpers import mir_of

NESTED = """
@vk.kernel
def nested(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32):
    i = vk.tid()
    s = 0
    j = 0
    for k in range(n):
        if k == 3:
            break
        if k == 5:
            return
        if k == 1:
            continue
        for m in range(k + 1):
            s += x[m] * (k + 1)
        j = k
    if i < out.shape[0]:
        out[i] = s * 10 + j
"""

WHILE_STRIDE = """
@vk.kernel
def stride_sum(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), step: vk.int32):
    vk.requires(step >= 1)
    i = vk.tid()
    acc = 0
    k = i
    while k < x.shape[0]:
        acc += x[k]
        k += step
    if i < out.shape[0]:
        out[i] = acc + k
"""

WITH_INVARIANT = """
@vk.kernel
def hinted(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32):
    vk.requires(n <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0
        for k in range(n):
            vk.invariant(k < 2)
            acc += x[k]
        out[i] = acc
"""

WITH_BARRIER = """
@vk.kernel(block_dim=4)
def barrier_loop(out: vk.array(dtype=vk.int32), n: vk.int32):
    s = vk.shared.array(shape=(4,), dtype=vk.int32)
    t = vk.thread_idx()
    acc = 0
    for k in range(n):
        s[t] = k
        vk.sync_threads()
        acc += s[(t + 1) % 4]
        vk.sync_threads()
    out[vk.tid()] = acc
"""


def _mir(src: str):
    return mir_of(src, header=True, filename="peel_case.py")


def _run(kernel, dim, inputs):
    """The outputs of a launch (copies of every array) or the error it raised
    as (class name, line)."""
    arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in inputs]
    try:
        launch(kernel, dim, arrays, block_dim=4)
    except errors.KernelRuntimeError as err:
        return ("error", type(err).__name__, err.loc.line if err.loc else None)
    return tuple(a.tolist() for a in arrays if isinstance(a, np.ndarray))


@pytest.mark.parametrize("iterations", [1, 2, 3])
def test_nested_loops_with_break_continue_return_run_identically(iterations):
    k = _mir(NESTED)
    peeled, _ = peel_loops(k, iterations)
    verify(peeled)
    x = np.arange(1, 9, dtype=np.int32)
    for n in (0, 1, 2, 3, 4, 7):
        inputs = [x, np.zeros(5, np.int32), np.int32(n)]
        expected = _run(k, 5, inputs)
        assert _run(peeled, 5, inputs) == expected, n
    # hand-computed: n=3 runs k=0 (s += x[0]*1), k=1 continue, k=2 (x[0..2]*3) then break at 3
    assert _run(peeled, 1, [x, np.zeros(1, np.int32), np.int32(7)]) == \
        (x.tolist(), [(1 + 3 * (1 + 2 + 3)) * 10 + 2])


def test_while_loop_same_results_and_same_out_of_bounds_error():
    k = _mir(WHILE_STRIDE)
    peeled, _ = peel_loops(k, 2)
    verify(peeled)
    for shape, step in ((10, 3), (3, 1), (1, 5), (0, 2)):
        inputs = [np.arange(shape, dtype=np.int32) + 1, np.zeros(6, np.int32), np.int32(step)]
        assert _run(peeled, 6, inputs) == _run(k, 6, inputs)
    # out has 2 elements but 6 threads, x is empty: no thread reads x, threads 2.. skip the store
    assert _run(peeled, 6, [np.zeros(0, np.int32), np.zeros(2, np.int32), np.int32(1)]) == \
        ([], [0, 1])


def test_peeled_copies_keep_source_locations_and_map_back():
    k = _mir(WHILE_STRIDE)
    peeled, sites = peel_loops(k, 2)
    original_sites = {(b.label, i): ins.loc for b in k.blocks for i, ins in enumerate(b.instrs)}
    load_site = next((b.label, i) for b in k.blocks for i, ins in enumerate(b.instrs)
                     if isinstance(ins, Load))
    for b in peeled.blocks:
        for i, ins in enumerate(b.instrs):
            assert ins.loc == original_sites[sites[(b.label, i)]]
    copies = sites.copies(load_site)
    assert len(copies) == 2
    assert [sites.iterations[lbl] for lbl, _ in copies] == [((10, 1),), ((10, 2),)]
    assert "iteration 2 of the loop at line 10" == sites.describe(copies[1][0])
    # the original blocks keep their labels and positions
    assert all(sites[(b.label, 0)] == (b.label, 0) for b in k.blocks if b.instrs)


def test_loop_metadata_describes_remaining_and_copied_loops():
    k = _mir(NESTED)
    peeled, sites = peel_loops(k, 1)
    outer, inner = k.loops
    by_header = {lp.header: lp for lp in peeled.loops}
    assert set(by_header) >= {outer.header, inner.header}
    # the outer loop's one peeled copy contains a copy of the inner loop, which
    # itself has one peeled iteration: 1 original inner + 1 copy that remains a loop
    inner_loops = [lp for lp in peeled.loops if sites.origin[lp.header] == inner.header]
    assert len(inner_loops) == 2
    remaining_outer = by_header[outer.header]
    labels = {b.label for b in peeled.blocks}
    for lp in peeled.loops:
        assert set(lp.body) <= labels and lp.exit in labels
        preds = peeled.predecessors()[lp.header]
        assert set(lp.latches) <= set(preds) and set(lp.latches) <= set(lp.body)
        assert all(p in lp.body for p in preds if p in lp.latches)
    # the original inner loop's peeled copies lie inside the remaining outer loop
    for lp in inner_loops:
        if lp.header in remaining_outer.body:
            assert set(lp.body) <= set(remaining_outer.body)
    # the remaining outer counter now starts at the copy's k + 1
    start = remaining_outer.range.start
    defining = {ins.result.id: ins for b in peeled.blocks for ins in b.instrs
                if getattr(ins, "result", None) is not None}
    assert defining[start.id].op == "add" and start.id != outer.range.start


def test_peeled_invariant_becomes_an_assert_and_fails_identically():
    k = _mir(WITH_INVARIANT)
    peeled, _ = peel_loops(k, 3)
    verify(peeled)
    asserts = [ins for _, ins in peeled.instructions() if isinstance(ins, Assert)]
    assert sorted(a.kind for a in asserts) == ["assert"] * 3 + ["invariant"]
    (loop,) = peeled.loops
    assert [a.kind for a in loop.invariants] == ["invariant"]
    assert any(a is loop.invariants[0] for a in asserts)
    x = np.arange(5, dtype=np.int32)
    for n in (2, 3, 5):
        inputs = [x, np.zeros(1, np.int32), np.int32(n)]
        assert _run(peeled, 1, inputs) == _run(k, 1, inputs)
    assert _run(peeled, 1, [x, np.zeros(1, np.int32), np.int32(3)])[:2] == \
        ("error", "KernelAssertionError")


@pytest.mark.parametrize("iterations", [1, 2])
def test_loops_with_barriers_are_peeled_with_their_barriers(iterations):
    """Each peeled iteration keeps both barriers, and the block computes the
    same sums: (n * (n - 1) / 2) for every thread."""
    k = _mir(WITH_BARRIER)
    peeled, sites = peel_loops(k, iterations)
    verify(peeled)
    assert sum(isinstance(i, Barrier) for _, i in peeled.instructions()) == 2 * (iterations + 1)
    for n in (0, 1, 2, 3, 5):
        inputs = [np.zeros(8, np.int32), np.int32(n)]
        expected = _run(k, 8, inputs)
        assert expected == ([n * (n - 1) // 2] * 8,)
        assert _run(peeled, 8, inputs) == expected, n


def test_budget_stops_peeling():
    k = _mir(NESTED)
    small, _ = peel_loops(k, 3, max_instructions=0)
    assert small.blocks == k.blocks
    big, _ = peel_loops(k, 3)
    assert len(big.blocks) > len(k.blocks)


def test_corpus_kernels_stay_valid_after_peeling():
    from pathlib import Path

    from verikern.frontend import compile_file

    root = Path(__file__).resolve().parents[1] / "corpus"
    for name in ("bounds_range_step_counter_wraps", "bounds_grid_stride_int32_overflow",
                 "invariant_fails_loop_bound_hint", "ok_grid_stride_loop_bounded"):
        k = compile_file(root / f"{name}.py").kernels[0].mir
        peeled, _ = peel_loops(k, 2)
        verify(peeled)
        assert len(peeled.loops) == len(k.loops)


CORPUS_WITH_PEELED_LOOPS = ("ok_conv3x3_zero_pad", "bounds_conv3x3_missing_pad_check",
                            "ok_matmul_naive", "ok_matmul_tiled", "ok_grid_stride_loop_bounded",
                            "ok_range_step_bounded_length", "invariant_fails_loop_bound_hint")


@pytest.mark.parametrize("name", CORPUS_WITH_PEELED_LOOPS)
def test_corpus_kernels_run_identically_after_peeling(name):
    """Generated inputs (verikern.inputs): same outputs, or the same error at
    the same line, on the simulator; at least one loop was peeled."""
    from pathlib import Path

    from verikern.frontend import compile_file
    from verikern.inputs import make_inputs, ordered_inputs

    k = compile_file(Path(__file__).resolve().parents[1] / "corpus" / f"{name}.py").kernels[0].mir
    peeled, _ = peel_loops(k, 2)
    verify(peeled)
    assert len(peeled.blocks) > len(k.blocks)
    block = k.block_dim or 16
    dims = (48,) if k.launch_ndim == 1 else tuple([3] * (k.launch_ndim - 1) + [block])
    dim = dims[0] if len(dims) == 1 else dims
    for seed in range(2):
        values = make_inputs(k, dims, block, np.random.default_rng(seed))
        results = []
        for kernel in (k, peeled):
            inputs = [np.array(v) if isinstance(v, np.ndarray) else v
                      for v in ordered_inputs(k, values)]
            try:
                launch(kernel, dim, inputs, block_dim=block)
                results.append([a.tobytes() for a in inputs if isinstance(a, np.ndarray)])
            except errors.KernelRuntimeError as err:
                results.append((type(err).__name__, err.loc.line if err.loc else None))
        assert results[0] == results[1], seed


def test_outer_only_peels_nested_loops_only_inside_peeled_iterations():
    k = _mir(NESTED)
    outer, inner = k.loops
    peeled, sites = peel_loops(k, 2, outer_only=True)
    verify(peeled)
    remaining_outer = next(lp for lp in peeled.loops if lp.header == outer.header)
    # the original inner loop (inside the remaining outer loop) has no copies
    inside = [lbl for lbl in remaining_outer.body if sites.origin[lbl] == inner.header]
    assert inside == [inner.header]
    # each peeled outer iteration holds 2 peeled inner iterations and the rest of the loop
    copies = [lbl for lbl, it in sites.iterations.items()
              if sites.origin[lbl] == inner.header and len(it) == 2]
    assert sorted(sites.iterations[lbl] for lbl in copies) == \
        [((9, 1), (16, 1)), ((9, 1), (16, 2)), ((9, 2), (16, 1)), ((9, 2), (16, 2))]
    x = np.arange(1, 9, dtype=np.int32)
    for n in (0, 2, 3, 7):
        inputs = [x, np.zeros(3, np.int32), np.int32(n)]
        assert _run(peeled, 3, inputs) == _run(k, 3, inputs)
