"""The operators and constants of tests/warp_compat/kernels_ops.py under
real Warp on its CPU device, verikern's simulator and `cpu:native`, on the
same inputs, and against numpy as the independent reference."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.errors import KernelAssertionError
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels():
    init_warp_quietly(wp)
    spec = importlib.util.spec_from_file_location("verikern_warp_compat_ops",
                                                  HERE / "kernels_ops.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def under_warp(kernel, n, values, dtypes):
    arrays = [wp.array(v, dtype=t, device="cpu") for v, t in zip(values, dtypes)]
    wp.launch(kernel, dim=n, inputs=arrays, device="cpu")
    wp.synchronize_device("cpu")
    return [a.numpy() for a in arrays]


def test_expect_eq_on_vectors_and_matrices(kernels):
    """Every expectation holds (-0.0 == 0.0): Warp and verikern run the launch;
    one differing component (or a NaN: NaN != NaN) fails verikern's assert at
    that line on both devices."""
    v = np.float32([[1, 2, 3], [0, 0, 0], [5, 6, 7]])
    w = np.float32([[1, 2, 3], [-0.0, 0, 0], [5, 6, 7]])
    m = np.tile(np.float32([[1, 2], [3, 4]]), (3, 1, 1))
    flags = under_warp(kernels.equality, 3, [v, w, m, np.zeros(3, np.int32)],
                       [wp.vec3, wp.vec3, wp.mat22, int])[3]
    assert flags.tolist() == [1, 1, 1]
    for dev in DEVICES:
        mine = np.zeros(3, np.int32)
        vk.launch(kernels.equality, 3, [v, w, m, mine], device=dev)
        assert mine.tolist() == [1, 1, 1], dev
    line = 1 + (HERE / "kernels_ops.py").read_text().splitlines().index(
        "    wp.expect_eq(v[i], w[i])")
    for bad in ((w, 1, 1, 5.0), (v, 2, 0, np.nan)):
        arr = bad[0].copy()
        arr[bad[1], bad[2]] = bad[3]
        args = [arr, w, m] if bad[0] is v else [v, arr, m]
        for dev in DEVICES:
            with pytest.raises(KernelAssertionError, match=f"kernels_ops.py:{line}:5"):
                vk.launch(kernels.equality, 3, [*args, np.zeros(3, np.int32)], device=dev)


def test_scalar_division_and_row_vector_products(kernels):
    rng = np.random.default_rng(12)
    n = 9
    v = rng.uniform(0.5, 2.0, (n, 3)).astype(np.float32)
    m = rng.uniform(0.5, 2.0, (n, 3, 3)).astype(np.float32)
    q = rng.uniform(0.5, 2.0, (n, 4)).astype(np.float32)
    outs = [np.zeros((n, 3), np.float32), np.zeros((n, 3, 3), np.float32),
            np.zeros((n, 4), np.float32), np.zeros((n, 3), np.float32)]
    theirs = under_warp(kernels.products, n, [v, m, q, *outs],
                        [wp.vec3, wp.mat33, wp.quat, wp.vec3, wp.mat33, wp.quat, wp.vec3])[3:]
    want = [2.0 / v, math.pi / m, (math.pi / 2) / q,
            np.einsum("ni,nij->nj", v.astype(np.float64), m.astype(np.float64))
            + [2 * math.pi, math.e, 1 / math.log(2)]]
    for w, t in zip(want, theirs):
        np.testing.assert_allclose(t, w, rtol=1e-5)
    for dev in DEVICES:
        mine = [o.copy() for o in outs]
        vk.launch(kernels.products, n, [v, m, q, *mine], device=dev)
        for k, (o, t) in enumerate(zip(mine, theirs)):
            np.testing.assert_allclose(o, t, rtol=1e-6, err_msg=f"output {k} on {dev}")


def test_generic_type_constructors(kernels):
    values = [np.zeros(1, np.float32), np.zeros((1, 3), np.float32),
              np.zeros((1, 2, 2), np.float32), np.zeros((1, 4), np.float32)]
    theirs = under_warp(kernels.constructors, 1, values, [float, wp.vec3, wp.mat22, wp.quat])
    by_hand = [[1.0 + 1.5 + 2.0 + 0.0], [[1, 2, 3]], [[[0, 1], [2, 3]]], [[1, 2, 3, 4]]]
    for t, w in zip(theirs, by_hand):
        assert t.tolist() == w
    for dev in DEVICES:
        mine = [v.copy() for v in values]
        vk.launch(kernels.constructors, 1, mine, device=dev)
        assert [x.tolist() for x in mine] == by_hand, dev


def test_stores_into_part_of_an_element(kernels):
    """Component and row stores write only those components; `+=`/`-=` on a
    part are atomic (every thread's contribution is in the sum)."""
    rng = np.random.default_rng(13)
    n = 40
    x = np.arange(1, n + 1, dtype=np.float32)
    y = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    m = rng.uniform(-1, 1, (n, 3, 3)).astype(np.float32)
    r = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    rows = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    values = [y, x, m, r, np.zeros((1, 3), np.float32), np.ones((1, 2, 2), np.float32), rows]
    dtypes = [wp.vec3, float, wp.mat33, wp.vec3, wp.vec3, wp.mat22, wp.vec2]
    theirs = under_warp(kernels.element_parts, n, values, dtypes)
    want_y = y.copy()
    want_y[:, 0], want_y[:, 2] = 2 * x, 4 * x
    want_m = m.copy()
    want_m[:, 1, 2], want_m[:, 0], want_m[:, 2] = x, r, 2 * m[:, 2]
    by_hand = {0: want_y, 2: want_m, 4: [[0.0, x.sum(), -float(n)]],
               5: [[[1.0, 1.0], [1 + rows[:, 0].sum(), 1 + rows[:, 1].sum()]]]}
    for k, w in by_hand.items():
        np.testing.assert_allclose(theirs[k], w, rtol=1e-6)
    for dev in DEVICES:
        mine = [v.copy() for v in values]
        vk.launch(kernels.element_parts, n, mine, block_dim=16, device=dev)
        for k, (o, t) in enumerate(zip(mine, theirs)):
            np.testing.assert_allclose(o, t, rtol=1e-6, err_msg=f"argument {k} on {dev}")


def test_run_time_component_indices(kernels):
    idx = np.int32([0, 1, 2, 2, 1, 0, 1])
    n = idx.size
    values = [idx, np.zeros(n, np.float32), np.zeros((n, 3), np.float32),
              np.zeros((n, 2, 2), np.float32)]
    theirs = under_warp(kernels.run_time_components, n, values, [int, float, wp.vec3, wp.mat22])
    v, m = np.float32([1, 2, 3]), np.float32([[1, 2], [3, 4]])
    want_out = [14 + v[j] + m[j % 2, 1] + m[1, j % 2] + m[j % 2, 0] for j in idx]
    want_v = [[10.0 if k == j else v[k] for k in range(3)] for j in idx]
    want_m = []
    for j in idx:
        mm = m.copy()
        mm[j % 2, (j + 1) % 2] = -1.0
        want_m.append(mm.tolist())
    assert theirs[1].tolist() == want_out and theirs[2].tolist() == want_v
    assert theirs[3].tolist() == want_m
    for dev in DEVICES:
        mine = [x.copy() for x in values]
        vk.launch(kernels.run_time_components, n, mine, device=dev)
        assert [x.tolist() for x in mine[1:]] == [want_out, want_v, want_m], dev


def test_verdicts_of_the_compat_kernels():
    """The prover's verdicts: `equality` asserts facts about its inputs (no
    contract states them), so it fails; the others are proved. At a tenth of the
    default budget (`budget=1`), every verdict is the default's: a proof at less work
    is the same proof, and `reversed_ranges`, which stays `unknown`, spends a tenth of
    the default's 4 CPU s on it (session 29)."""
    from verikern.app.prove import prove_file

    reports = prove_file(HERE / "kernels_ops.py", budget=1) + prove_file(HERE / "kernels_atan2.py", budget=1)
    verdicts = {r.kernel: r.status.value for r in reports}
    # the write count of two loops: within the contract, but the solver may give up
    assert verdicts.pop("reversed_ranges") in ("proved", "unknown")
    assert verdicts == {
        "equality": "failed", "products": "proved", "constructors": "proved",
        "element_parts": "proved", "run_time_components": "proved", "angles": "proved",
        "loop_variable_after": "proved", "static_values": "proved",
        "int_conditions": "proved", "matrices_from_vectors": "proved", "repeat": "proved",
        "near_trace_nan": "failed", "matrix_rows": "proved", "func_defaults": "proved",
        "local_dtype": "proved", "run_time_rows": "proved", "typed_constants": "proved"}


def test_loop_variable_after_a_constant_loop(kernels):
    for gate in (0, 1):
        theirs = under_warp(kernels.loop_variable_after, 1,
                            [np.int32([gate]), np.zeros(2, np.int32)], [int, int])[1]
        # by hand: i ends at 1 (+3 in the while), j at 4 (10, 7, 4), s = 0 + 1 (+3 ungated)
        want = [1 + 3, 4 + 1 + (0 if gate else 3)]
        assert theirs.tolist() == want
        for dev in DEVICES:
            out = np.zeros(2, np.int32)
            vk.launch(kernels.loop_variable_after, 1, [np.int32([gate]), out], device=dev)
            assert out.tolist() == want, dev


def test_static_expressions_of_loop_variables_captures_and_lengths(kernels):
    x = np.float32([1, 2, 3, 4])
    arrays = [wp.zeros(3, dtype=float, device="cpu"), wp.quat(0.0, 0.0, 0.0, 1.0),
              wp.array(x, device="cpu")]
    wp.launch(kernels.static_values_15, dim=3, inputs=arrays, device="cpu")
    want = (1 + 2 + 2) + (3 + 2 + 4) + 1.5 * 2 + 4 + 3     # by hand: odd i only
    assert arrays[0].numpy().tolist() == [want] * 3
    for dev in DEVICES:
        a = np.zeros(3, np.float32)
        vk.launch(kernels.static_values_15, 3, [a, (0.0, 0.0, 0.0, 1.0), x], device=dev)
        assert a.tolist() == [want] * 3, dev


def test_integer_conditions(kernels):
    for n, want in ((0, 109.0), (5, 19.0)):      # by hand: 2 + 7 + (100 or 10)
        out = wp.zeros(1, dtype=float, device="cpu")
        wp.launch(kernels.int_conditions, dim=1, inputs=[n, out], device="cpu")
        assert out.numpy().tolist() == [want]
        for dev in DEVICES:
            mine = np.zeros(1, np.float32)
            vk.launch(kernels.int_conditions, 1, [n, mine], device=dev)
            assert mine.tolist() == [want], dev


def test_matrices_from_vectors_and_component_conversions(kernels):
    values = [np.zeros((2, 3, 3), np.float32), np.zeros((1, 2, 2), np.float32),
              np.zeros((2, 2), np.float16), np.zeros((1, 2, 2), np.float64)]
    theirs = under_warp(kernels.matrices_from_vectors, 1, values,
                        [wp.mat33, wp.mat22, wp.vec2h, wp.mat22d])
    rows = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    by_hand = [[rows.T.tolist(), rows.tolist()], [[[1.5, 1.5], [2.25, 2.25]]],
               [[1.5, 2.25], [1.5, 2.25]], [[[1.0, 2.0], [3.0, 4.0]]]]
    assert [t.tolist() for t in theirs] == by_hand
    for dev in DEVICES:
        mine = [v.copy() for v in values]
        vk.launch(kernels.matrices_from_vectors, 1, mine, device=dev)
        assert [m.tolist() for m in mine] == by_hand, dev


def test_factory_parameters_typed_by_their_call_sites(kernels):
    for kernel, want in ((kernels.repeat_1_3, 2.0 + 3.0), (kernels.repeat_25_4, 5.0 + 10.0)):
        out = wp.zeros(4, dtype=float, device="cpu")
        wp.launch(kernel, dim=4, inputs=[out], device="cpu")
        assert out.numpy().tolist() == [want] * 4
        for dev in DEVICES:
            mine = np.zeros(4, np.float32)
            vk.launch(kernel, 4, [mine], device=dev)
            assert mine.tolist() == [want] * 4, dev


def test_expect_near_trace_and_float_classes(kernels):
    for y, cls in ((np.nan, 1), (np.inf, 2), (-np.inf, 2), (2.0, 3), (-0.0, 3)):
        x = np.float32([1.0, y])
        theirs = under_warp(kernels.near_trace_nan, 1, [x, np.zeros(2, np.int32)], [float, int])
        assert theirs[1].tolist() == [5, cls]                  # trace 1 + 4; by hand
        for dev in DEVICES:
            out = np.zeros(2, np.int32)
            vk.launch(kernels.near_trace_nan, 1, [x, out], device=dev)
            assert out.tolist() == [5, cls], (y, dev)
    for dev in DEVICES:   # |x[0] - 1.1| > 0.5: Warp prints a failure, verikern's assert fails
        with pytest.raises(KernelAssertionError, match="expect_near"):
            vk.launch(kernels.near_trace_nan, 1, [np.float32([2.0, 1.0]), np.zeros(2, np.int32)],
                      device=dev)


def test_local_matrix_row_and_element_stores(kernels):
    x = np.float32([[1, 2], [3, 4], [-1, 0.5]])
    values = [x, np.zeros((3, 2, 2), np.float32), np.zeros((3, 3, 3), np.float32)]
    theirs = under_warp(kernels.matrix_rows, 3, values, [wp.vec2, wp.mat22, wp.mat33])
    want_y = np.stack([x, 2 * x], axis=1)
    want_z = np.zeros((3, 3, 3), np.float32)
    want_z[:, 0, 0], want_z[:, 0, 1], want_z[:, 2, 2] = 1, 2, 3
    assert theirs[1].tolist() == want_y.tolist() and theirs[2].tolist() == want_z.tolist()
    for dev in DEVICES:
        mine = [v.copy() for v in values]
        vk.launch(kernels.matrix_rows, 3, mine, device=dev)
        assert mine[1].tolist() == want_y.tolist() and mine[2].tolist() == want_z.tolist(), dev


@pytest.mark.parametrize("start, end, step", [(0, 10, 3), (10, 0, -4), (5, 5, 1), (1, 10, -3),
                                              (-7, 8, 5), (3, 3, 0)])
def test_reversed_range_loops(kernels, start, end, step):
    py = list(reversed(range(start, end, step))) if step else []   # Warp: step 0 is empty
    want = py + [103, 102, 101, 100]
    count = wp.zeros(1, dtype=wp.int32, device="cpu")
    vals = wp.zeros(64, dtype=wp.int32, device="cpu")
    wp.launch(kernels.reversed_ranges, dim=1, inputs=[start, end, step, count, vals], device="cpu")
    assert count.numpy()[0] == len(want) and vals.numpy()[:len(want)].tolist() == want
    for dev in DEVICES:
        c, v = np.zeros(1, np.int32), np.zeros(64, np.int32)
        vk.launch(kernels.reversed_ranges, 1, [start, end, step, c, v], device=dev)
        assert c[0] == len(want) and v[:len(want)].tolist() == want, dev


def test_func_parameter_defaults(kernels):
    x = np.float32([1, 2, 3, -4])
    theirs = under_warp(kernels.func_defaults, 4, [x, np.zeros(4, np.float32)], [float, float])
    want = ((2 * x + 3) + (10 * x + 3) + x + (2 * x + 1) + (0.5 * x + 3)).tolist()  # by hand
    assert theirs[1].tolist() == want
    for dev in DEVICES:
        out = np.zeros(4, np.float32)
        vk.launch(kernels.func_defaults, 4, [x, out], device=dev)
        assert out.tolist() == want, dev


def test_type_alias_local_to_a_factory(kernels):
    values = np.array([[1.0, 2.25]])
    theirs = under_warp(kernels.local_dtype, 1, [values, np.zeros(1)], [wp.float64, wp.float64])
    assert theirs[1].tolist() == [3.25]
    for dev in DEVICES:
        out = np.zeros(1)
        vk.launch(kernels.local_dtype, 1, [values, out], device=dev)
        assert out.tolist() == [3.25], dev


def test_run_time_matrix_rows(kernels):
    theirs = under_warp(kernels.run_time_rows, 1, [np.zeros((3, 3), np.float32)], [wp.vec3])[0]
    want = [[5.0, 10.0, 12.0], [3.0, 6.0, 6.0], [1.0, 2.0, 0.0]]       # by hand
    assert theirs.tolist() == want
    for dev in DEVICES:
        out = np.zeros((3, 3), np.float32)
        vk.launch(kernels.run_time_rows, 1, [out], device=dev)
        assert out.tolist() == want, dev


def test_typed_module_constants(kernels):
    values = [np.float64([3.0, 2.0]), np.int64([5]), np.zeros(1), np.zeros(1, np.int64),
              np.zeros(1, np.float16)]
    theirs = under_warp(kernels.typed_constants, 1, values,
                        [wp.float64, wp.int64, wp.float64, wp.int64, wp.float16])
    want = [[-2 * math.pi * 3.0 / 4.0], [-35], [float(np.float16(0.1) + np.float16(0.1))]]
    assert [t.tolist() for t in theirs[2:]] == want
    for dev in DEVICES:
        mine = [v.copy() for v in values]
        vk.launch(kernels.typed_constants, 1, mine, device=dev)
        assert [m.tolist() for m in mine[2:]] == want, dev
