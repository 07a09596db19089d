"""Differential tests of the lowering: each kernel source is both compiled to
MIR (run by the small sequential evaluator in mir_eval.py) and executed as
plain Python with a stand-in `vk` module, thread by thread; outputs must be
equal. Values stay small so Python ints and int32 agree."""
from __future__ import annotations

import textwrap
import warnings

import numpy as np
from hypothesis import given, settings, strategies as st

from verikern.frontend.scan.type_names import round_float
from verikern.hir.types import F16, F32, F64
from frontend import mir_eval
from frontend.fe_util import compile_ok


class _Shim:
    """Just enough of `verikern` to execute kernel bodies as Python."""

    def __init__(self):
        self.linear = 0
        self.dims = (1,)
        self.block_dim = 4

    def kernel(self, fn=None, **kw):
        return fn if fn is not None else (lambda f: f)

    def func(self, fn):
        return fn

    def array(self, dtype=None, ndim=1):
        return None

    int32 = staticmethod(int)
    float32 = staticmethod(float)

    def tid(self):
        if len(self.dims) == 1:
            return self.linear
        return tuple(int(x) for x in np.unravel_index(self.linear, self.dims))

    def thread_idx(self):
        return self.linear % self.block_dim

    def block_idx(self):
        return self.linear // self.block_dim

    def requires(self, c):
        pass

    def invariant(self, c):
        assert c

    min = staticmethod(min)
    max = staticmethod(max)
    abs = staticmethod(abs)

    def atomic_add(self, arr, *args):
        *idx, v = args
        old = arr[tuple(idx)].item()
        arr[tuple(idx)] += v
        return old

    def atomic_max(self, arr, *args):
        *idx, v = args
        old = arr[tuple(idx)].item()
        arr[tuple(idx)] = max(old, v)
        return old


def _run_python(src, name, dims, arrays, scalars, block_dim=4):
    shim = _Shim()
    ns = {"vk": shim}
    exec(compile(textwrap.dedent(src).replace("import verikern as vk", ""), "k.py", "exec"), ns)
    fn = ns[name]
    shim.dims, shim.block_dim = dims, block_dim
    for linear in range(int(np.prod(dims))):
        shim.linear = linear
        fn(*[arrays[k] if k in arrays else scalars[k] for k in fn.__code__.co_varnames[
            :fn.__code__.co_argcount]])


def _differential(src, name, dims, arrays, scalars):
    mir = compile_ok(src, name)
    a_mir = {k: v.copy() for k, v in arrays.items()}
    a_py = {k: v.copy() for k, v in arrays.items()}
    mir_eval.run(mir, dims, a_mir, scalars)
    _run_python(src, name, dims, a_py, scalars)
    for k in arrays:
        np.testing.assert_array_equal(a_mir[k], a_py[k], err_msg=k)
    return a_mir


CONTROL = """
import verikern as vk

@vk.func
def classify(x: int) -> int:
    if x < 0:
        return -1
    elif x == 0:
        return 0
    for k in range(3):
        if x == k * 7:
            return 100 + k
    return 1

@vk.func
def count_pos(a: vk.array(dtype=vk.int32), n: int) -> int:
    c = 0
    for k in range(n):
        if a[k] > 0:
            c += 1
    return c

@vk.kernel
def control(a: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: int):
    i = vk.tid()
    acc = 0
    for k in range(n):
        if k % 3 == 1:
            continue
        if acc > 40:
            break
        j = 0
        while j < k:
            j += 2
            acc += j
    x = a[i] if i < a.shape[0] else -5
    good = i < a.shape[0] and a[i] > 2
    chained = 0 <= i < a.shape[0] and a[i] < 7
    y = 0
    if good or (i < a.shape[0] and a[i] == 0):
        y = 1
    out[i] = acc * 1000 + classify(x) * 10 + y + (2 if chained else 0) + count_pos(a, a.shape[0])
    z = 17 - i
    out[i] += z // 4 + z % 4 + (z >> 1) + (z << 2) - (z & 5) + (z ^ 3) + (z | 8)
"""


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 14), min_size=1, max_size=9), st.integers(0, 9),
       st.integers(0, 3))
def test_control_flow_matches_python(values, n, extra):
    a = np.array(values, np.int32)
    dims = len(values) + extra  # some threads run past the end of `a`
    out = np.zeros(dims, np.int32)
    _differential(CONTROL, "control", (dims,), {"a": a, "out": out}, {"n": n})


ATOMICS = """
import verikern as vk

@vk.kernel
def hist(x: vk.array(dtype=vk.int32), bins: vk.array(dtype=vk.int32),
         olds: vk.array(dtype=vk.int32), top: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < x.shape[0]:
        bins[x[i]] += 1
        olds[i] = vk.atomic_add(bins, x[i], 2)
        vk.atomic_max(top, 0, x[i])
        bins[x[i]] -= 1
"""


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12))
def test_atomic_updates_match_python(values):
    x = np.array(values, np.int32)
    arrays = {"x": x, "bins": np.zeros(5, np.int32), "olds": np.zeros(len(x), np.int32),
              "top": np.zeros(1, np.int32)}
    res = _differential(ATOMICS, "hist", (len(x),), arrays, {})
    np.testing.assert_array_equal(res["bins"], 2 * np.bincount(x, minlength=5))
    assert res["top"][0] == x.max()


TID2 = """
import verikern as vk

@vk.kernel
def grid(out: vk.array(dtype=vk.int32, ndim=3)):
    i, j, k = vk.tid()
    out[i, j, k] = i * 100 + j * 10 + k + vk.block_idx() * 0
"""


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 5))
def test_tid_3d_matches_numpy_unravel(d0, d1, d2):
    out = np.full((d0, d1, d2), -1, np.int32)
    res = _differential(TID2, "grid", (d0, d1, d2), {"out": out}, {})
    i, j, k = np.indices((d0, d1, d2))
    np.testing.assert_array_equal(res["out"], i * 100 + j * 10 + k)


def test_short_circuit_prevents_out_of_bounds_load():
    # the evaluator raises on any out-of-bounds access, so the guarded loads
    # must really sit behind branches
    src = """
    import verikern as vk

    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        i = vk.tid()
        ok = i < a.shape[0] and a[i] > 0
        v = a[i] if i < a.shape[0] else 0
        w = (i >= a.shape[0]) or a[i] > 1
        out[i] = (1 if ok else 0) + v + (10 if w else 0)
    """
    a = np.array([3, -1], np.int32)
    out = np.zeros(4, np.int32)
    res = _differential(src, "k", (4,), {"a": a, "out": out}, {})
    np.testing.assert_array_equal(res["out"], [1 + 3 + 10, -1, 10, 10])


def test_where_and_select_evaluate_both_values():
    src = """
    import verikern as vk

    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        i = vk.tid()
        out[i] = vk.where(i < 2, a[0], a[1]) * 10 + vk.select(i < 2, 5, 7)
    """
    from verikern.mir import nodes as M
    mir = compile_ok(src)
    assert len([x for _, x in mir.instructions() if isinstance(x, M.Load)]) == 2
    assert len(mir.blocks) == 1  # no branches: both arguments are evaluated
    out = np.zeros(3, np.int32)
    mir_eval.run(mir, (3,), {"a": np.array([4, 6], np.int32), "out": out}, {})
    np.testing.assert_array_equal(out, [47, 47, 65])


def test_store_evaluates_value_before_target_like_python():
    src = """
    import verikern as vk

    @vk.kernel
    def k(cnt: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        out[vk.atomic_add(cnt, 0, 1)] = vk.atomic_add(cnt, 0, 1) + 10
    """
    cnt = np.zeros(1, np.int32)
    out = np.zeros(4, np.int32)
    _differential(src, "k", (2,), {"cnt": cnt, "out": out}, {})


def test_a_literal_past_a_float_types_range_rounds_to_infinity_without_a_warning():
    """nvalchemi's float16 instances of an L-BFGS kernel hold `1e10`-sized literals: the
    C++ conversion Warp compiles gives an infinity, and so does verikern, silently (a
    numpy overflow warning used to reach the user's terminal)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert round_float(1e10, F16) == float("inf") and round_float(-1e10, F16) == float("-inf")
        assert round_float(1e40, F32) == float("inf") and round_float(1e40, F64) == 1e40
        assert round_float(65504.0, F16) == 65504.0 and round_float(0.1, F32) == float(np.float32(0.1))
