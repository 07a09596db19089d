"""cpu:native computes every MIR operation exactly as the simulator does
(bitwise; floats bitwise too, except that two NaNs count as equal whatever
their payload), and as independent numpy references where numpy has the
same semantics."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mir_kernels import elementwise
from verikern.mir.ops import BINARY, COMPARE, UNARY
from verikern.mir.types import SCALAR_TYPES
from verikern.runtime import launch

N = 70          # two blocks of 32 and a partial third
BLOCK = 32
SETTINGS = settings(max_examples=2, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def ops_for(t):
    """Every (kind, op) MIR defines on t (the op table, verikern.mir.ops)."""
    return [(kind, op) for kind, table in (("binop", BINARY), ("cmp", COMPARE), ("unop", UNARY))
            for op, info in table.items() if info.allows(t)]


@functools.lru_cache(maxsize=None)
def kernel(kind, op, src, dst=None):
    return elementwise(kind, op, SCALAR_TYPES[src], SCALAR_TYPES[dst] if dst else None)


def values(t):
    """A hypothesis strategy of arrays of type t: random bit patterns (every
    NaN, infinity, subnormal included) or magnitudes, led by edge values."""
    dt = t.np_dtype
    if t.is_bool:
        edge = [True, False]
    elif t.is_float:
        edge = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, np.inf, -np.inf, np.nan,
                float(np.finfo(dt).max), float(np.finfo(dt).tiny)]
    else:
        info = np.iinfo(dt)
        edge = [int(info.min), int(info.max), 0, 1, int(info.min) + 1, t.bits - 1, t.bits]
        if t.is_signed:
            edge += [-1, -2]

    def build(args):
        seed, lead, use_bits = args
        rng = np.random.default_rng(seed)
        if t.is_bool:
            arr = rng.integers(0, 2, N).astype(bool)
        elif t.is_float and not use_bits:
            arr = (rng.standard_normal(N) * 10.0 ** rng.integers(-3, 4, N)).astype(dt)
        else:
            raw = rng.integers(0, 256, N * dt.itemsize, dtype=np.uint8)
            arr = raw.view(dt).copy()
            if t.is_float:   # signaling NaNs: numpy's fmin/fmax and libm differ on them
                arr[np.isnan(arr)] = np.nan
        arr[:len(lead)] = np.array(lead, dtype=dt) if lead else arr[:0]
        return arr

    return st.tuples(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(edge), max_size=12),
                     st.booleans()).map(build)


def run(k, device, *inputs):
    out = np.zeros(N, k.params[2].dtype.np_dtype)
    launch(k, N, list(inputs) + [out], block_dim=BLOCK, device=device)
    return out


def assert_same(sim, nat, what, any_zero_sign=False):
    """Bitwise equal, except NaN payloads and, with any_zero_sign, the sign of
    a zero (min/max of +0 and -0: fminf leaves it open and numpy's fmin
    itself answers differently for short and long arrays)."""
    if sim.dtype.kind == "f":
        both_nan = np.isnan(sim) & np.isnan(nat)
        u = f"u{sim.dtype.itemsize}"
        bad = ~both_nan & (sim.view(u) != nat.view(u))
        if any_zero_sign:
            bad &= ~((sim == 0) & (nat == 0))
    else:
        bad = sim != nat
    assert not bad.any(), (f"{what}: first difference at {np.flatnonzero(bad)[:3]}: "
                           f"sim {sim[bad][:3]} native {nat[bad][:3]}")


TYPES = sorted(SCALAR_TYPES)
#: the integer widths whose ops and casts only `pytest -m slow` runs (tests/tiers.py
#: NIGHTLY: their lowering is the one int8, int32, int64, uint8 and uint64 run)
MIDDLE_WIDTHS = ("int16", "uint16", "uint32")


def test_the_widths_left_to_the_nightly_run_are_scalar_types_with_neighbours_kept():
    assert set(MIDDLE_WIDTHS) <= set(TYPES)
    kept = {t for t in TYPES if t not in MIDDLE_WIDTHS}
    assert {"int8", "int32", "int64", "uint8", "uint64"} <= kept


@pytest.mark.parametrize("tname", TYPES)
def test_every_op_matches_simulator(tname):
    t = SCALAR_TYPES[tname]

    @SETTINGS
    @given(values(t), values(t))
    def check(a, b):
        for kind, op in ops_for(t):
            rhs = b
            if t.is_int and op in ("div", "floordiv", "mod"):
                rhs = np.where(b == 0, np.ones_like(b), b)
            k = kernel(kind, op, tname)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert_same(run(k, "cpu", a, rhs), run(k, "cpu:native", a, rhs),
                            f"{kind} {op} on {tname}", any_zero_sign=op in ("min", "max"))

    check()


@pytest.mark.parametrize("src", TYPES)
def test_every_cast_matches_simulator(src):
    s = SCALAR_TYPES[src]

    @SETTINGS
    @given(values(s))
    def check(a):
        for dst in TYPES:
            if dst == src:
                continue
            x = a   # float->int out of range saturates and NaN gives 0 (docs/MIR.md)
            k = kernel("cast", "", src, dst)
            assert_same(run(k, "cpu", x, x.copy()), run(k, "cpu:native", x, x.copy()),
                        f"cast {src} -> {dst}")

    check()


# ------------------------------------------------------- independent references
def _native(kind, op, t, a, b=None):
    k = kernel(kind, op, t)
    return run(k, "cpu:native", a, a.copy() if b is None else b.copy())


@SETTINGS
@given(values(SCALAR_TYPES["int32"]), values(SCALAR_TYPES["int32"]))
def test_int32_arithmetic_against_python(a, b):
    b = np.where(b == 0, 7, b).astype(np.int32)
    wrap = SCALAR_TYPES["int32"].wrap
    py_a, py_b = a.tolist(), b.tolist()
    expect = {
        "add": [wrap(x + y) for x, y in zip(py_a, py_b)],
        "mul": [wrap(x * y) for x, y in zip(py_a, py_b)],
        "floordiv": [wrap(x // y) for x, y in zip(py_a, py_b)],
        "div": [wrap(int(x / y) if abs(x) < 2**52 else 0) if False else
                wrap((abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1))
                for x, y in zip(py_a, py_b)],
        "mod": [wrap(x - y * ((abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)))
                for x, y in zip(py_a, py_b)],
        "shl": [wrap(x << (y & 31)) for x, y in zip(py_a, py_b)],
        "shr": [x >> (y & 31) for x, y in zip(py_a, py_b)],
    }
    for op, want in expect.items():
        got = _native("binop", op, "int32", a, b)
        assert got.tolist() == want, op


def test_integer_edge_cases_by_hand():
    i32 = np.int32
    # (INT_MIN / -1 faults on int32: test_native_runtime.py; -2**31 + 1 / -1 fits)
    a = np.array([-2**31 + 1, -2**31, 7, -7, 7, -7, 1, -1] + [0] * (N - 8), i32)
    b = np.array([-1, 1, 2, 2, -2, -2, 33, 31] + [1] * (N - 8), i32)
    assert _native("binop", "floordiv", "int32", a, b)[:6].tolist() == \
        [2**31 - 1, -2**31, 3, -4, -4, 3]
    assert _native("binop", "div", "int32", a, b)[:6].tolist() == \
        [2**31 - 1, -2**31, 3, -3, -3, 3]
    assert _native("binop", "mod", "int32", a, b)[:6].tolist() == [0, 0, 1, -1, 1, -1]
    assert _native("binop", "shl", "int32", a, b)[6] == 2        # 33 & 31 == 1
    assert _native("binop", "shr", "int32", a, b)[7] == -1       # arithmetic
    assert _native("unop", "abs", "int32", a)[1] == -2**31
    assert _native("unop", "neg", "int32", a)[1] == -2**31
    u = np.array([0x80000000, 5] + [0] * (N - 2), np.uint32)
    assert _native("binop", "shr", "uint32", u, np.full(N, 31, np.uint32))[0] == 1
    assert _native("binop", "floordiv", "uint32", u, np.full(N, 3, np.uint32))[0] == \
        0x80000000 // 3


def test_float_semantics_against_numpy():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(N) * 4).astype(np.float32)
    b = (rng.standard_normal(N) * 4).astype(np.float32)
    a[:3], b[:3] = [np.nan, 1.0, np.nan], [2.0, np.nan, np.nan]
    with np.errstate(all="ignore"):
        assert np.array_equal(_native("binop", "min", "float32", a, b)[:2], [2.0, 1.0])
        assert np.isnan(_native("binop", "max", "float32", a, b)[2])
        np.testing.assert_array_equal(_native("binop", "mul", "float32", a, b)[3:],
                                      (a * b)[3:])
        np.testing.assert_array_equal(_native("unop", "sin", "float32", a),
                                      np.sin(a.astype(np.float64)).astype(np.float32))
        np.testing.assert_array_equal(_native("unop", "sqrt", "float32", np.abs(a)),
                                      np.sqrt(np.abs(a)))
        np.testing.assert_array_equal(_native("binop", "mod", "float32", a, b)[3:],
                                      np.fmod(a, b)[3:])
        h, g = a.astype(np.float16), b.astype(np.float16)
        np.testing.assert_array_equal(_native("binop", "add", "float16", h, g)[3:],
                                      (h + g)[3:])
        np.testing.assert_array_equal(_native("unop", "exp", "float16", h),
                                      np.exp(h.astype(np.float64)).astype(np.float16))
    ne = _native("cmp", "ne", "float32", a, b)
    assert ne[:3].tolist() == [True, True, True]            # NaN != anything
    assert not _native("cmp", "eq", "float32", a, a)[0]     # NaN == NaN is false
