"""The simulator's transcendentals (`sin cos tan exp log pow atan2`) are the C
library's own functions, bit for bit, whatever SIMD loops numpy has.

Independent reference: the C math library loaded with ctypes and called one
element at a time (`ctypes.CDLL(ctypes.util.find_library("m"))`), on edge
values and a few thousand random inputs (random bit patterns: NaN payloads,
infinities and subnormals included; and random magnitudes).  float32 results
must be that float64 value rounded once."""
from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

from simkit import run_binop, run_unop
from verikern.backends.semantics import libm, ops
from verikern.mir.types import SCALAR_TYPES

F64 = SCALAR_TYPES["float64"]
UNARY = ("sin", "cos", "tan", "exp", "log")
N_RANDOM = 3000

_LIB = ctypes.util.find_library("m")
pytestmark = pytest.mark.skipif(_LIB is None, reason="no C math library found by ctypes")


def c_function(name: str, nargs: int):
    fn = getattr(ctypes.CDLL(_LIB), name)
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_double] * nargs
    return fn


def reference(name: str, *operands: np.ndarray) -> np.ndarray:
    """`name` of the C library, called once per element through ctypes."""
    fn = c_function(name, len(operands))
    cols = np.broadcast_arrays(*[np.asarray(o, dtype=np.float64) for o in operands])
    return np.array([fn(*map(float, row)) for row in zip(*(c.ravel() for c in cols))],
                    dtype=np.float64).reshape(cols[0].shape)


def bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def assert_bitwise(got, want, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    uint = {8: np.uint64, 4: np.uint32, 2: np.uint16}[got.dtype.itemsize]
    bad = got.view(uint) != want.view(uint)
    if bad.any():
        first = np.flatnonzero(bad.ravel())[:3]
        show = [f"{got.ravel()[i]!r}={got.view(uint).ravel()[i]:#x} vs "
                f"{want.ravel()[i]!r}={want.view(uint).ravel()[i]:#x}" for i in first]
        pytest.fail(f"{what}: {int(bad.sum())} of {bad.size} differ from the C library; "
                    f"first at {first.tolist()}: " + "; ".join(show))


EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0, -8.0, np.pi / 2,
                 np.pi, 1e22, -1e300, 1e-300, 709.78, 709.79, -745.2, -745.1, 1 + 2**-52,
                 1 - 2**-53, 2.0**53, 2.0**53 - 1, 5e-324, 2.2250738585072014e-308,
                 np.finfo(np.float64).max, -np.finfo(np.float64).max,
                 np.inf, -np.inf, np.nan, -np.nan], dtype=np.float64)


def random_inputs(seed: int, n: int = N_RANDOM) -> np.ndarray:
    """Half random bit patterns, half magnitudes from 1e-3 to 1e3, mixed signs."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 2**64, n // 2, dtype=np.uint64, endpoint=False).view(np.float64)
    mags = rng.standard_normal(n - n // 2) * 10.0 ** rng.integers(-3, 4, n - n // 2)
    return np.concatenate([EDGE, raw, mags])


@pytest.mark.parametrize("name", UNARY)
def test_float64_unary_is_the_c_function(name):
    x = random_inputs(sum(map(ord, name)))
    want = reference(name, x)
    fn = ops.unary_function(name, F64)
    with np.errstate(all="ignore"):
        assert_bitwise(fn(x), want, f"{name} on arrays")
        assert_bitwise(fn(x[::-3]), want[::-3], f"{name} on a strided view")
        for v, w in zip(EDGE, want[:len(EDGE)]):
            r = fn(np.float64(v))
            assert type(r) is np.float64, f"{name}({v}) returned {type(r)}"
            assert bits(r) == bits(w), f"{name}({v!r}): got {r!r}, libm {w!r}"
    assert_bitwise(run_unop(name, "float64", x), want, f"{name} in a simulated kernel")


def pow_inputs():
    """Every pair of edge values, then random (base, exponent) pairs: random
    bits, positive bases with moderate exponents, negative bases with
    integer exponents."""
    base, expo = (a.ravel() for a in np.meshgrid(EDGE, EDGE))
    rng = np.random.default_rng(7)
    k = N_RANDOM // 3
    raw = rng.integers(0, 2**64, (2, k), dtype=np.uint64, endpoint=False).view(np.float64)
    pos = np.abs(rng.standard_normal(k)) * 10.0 ** rng.integers(-3, 4, k)
    neg = -np.abs(rng.standard_normal(k)) * 10.0 ** rng.integers(-1, 2, k)
    a = np.concatenate([base, raw[0], pos, neg])
    b = np.concatenate([expo, raw[1], rng.standard_normal(k) * 30,
                        rng.integers(-40, 41, k).astype(np.float64)])
    return a, b


def test_float64_pow_is_the_c_function():
    a, b = pow_inputs()
    want = reference("pow", a, b)
    fn = ops.binary_function("pow", F64)
    with np.errstate(all="ignore"):
        assert_bitwise(fn(a, b), want, "pow on arrays")
        assert_bitwise(fn(a[1::2], b[1::2]), want[1::2], "pow on strided views")
        for s in (2.0, -1.0, 0.5, 10.0, -3.0):   # one uniform operand, either side
            assert_bitwise(fn(a, np.float64(s)), reference("pow", a, s), f"pow(a, {s})")
            assert_bitwise(fn(np.float64(s), b), reference("pow", s, b), f"pow({s}, b)")
        for x, y in zip(a[:len(EDGE) ** 2:7], b[:len(EDGE) ** 2:7]):
            r = fn(np.float64(x), np.float64(y))
            assert type(r) is np.float64
            assert bits(r) == bits(reference("pow", x, y)), f"pow({x!r}, {y!r}) = {r!r}"
    assert_bitwise(run_binop("pow", "float64", a, b), want, "pow in a simulated kernel")


def random_float32(seed: int, n: int = N_RANDOM) -> np.ndarray:
    """float32 edge values, random float32 bit patterns and magnitudes."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 2**32, n // 2, dtype=np.uint32, endpoint=False).view(np.float32)
    mags = rng.standard_normal(n - n // 2) * 10.0 ** rng.integers(-3, 4, n - n // 2)
    with np.errstate(all="ignore"):
        edge = EDGE.astype(np.float32)
    return np.concatenate([edge, raw, mags.astype(np.float32)])


def test_float64_atan2_is_the_c_function():
    """atan2(y, x) on every pair of edge values (signed zeros and infinities:
    the quadrant rules) and random pairs, against the C library and, for
    finite operands, the angle numpy computes within 2 ulp."""
    y, x = (a.ravel() for a in np.meshgrid(EDGE, EDGE))
    rng = np.random.default_rng(9)
    y = np.concatenate([y, random_inputs(21)])
    x = np.concatenate([x, random_inputs(22)[: len(y) - len(x)]])
    want = reference("atan2", y, x)
    fn = ops.binary_function("atan2", F64)
    with np.errstate(all="ignore"):
        assert_bitwise(fn(y, x), want, "atan2 on arrays")
        assert_bitwise(fn(y, np.float64(-1.0)), reference("atan2", y, -1.0), "atan2(y, -1)")
    assert_bitwise(run_binop("atan2", "float64", y, x), want, "atan2 in a simulated kernel")
    assert fn(np.float64(-0.0), np.float64(-1.0)) == -np.pi      # quadrant by hand
    assert fn(np.float64(1.0), np.float64(0.0)) == np.pi / 2
    a, b = rng.standard_normal(500), rng.standard_normal(500)
    np.testing.assert_allclose(fn(a, b), np.arctan2(a, b), rtol=5e-16, atol=0)


@pytest.mark.parametrize("name", UNARY + ("pow", "atan2"))
def test_float32_is_the_float64_c_function_rounded_once(name):
    x = random_float32(11)
    if name in ("pow", "atan2"):
        y = random_float32(12)
        with np.errstate(all="ignore"):
            want = reference(name, x, y).astype(np.float32)
        got = run_binop(name, "float32", x, y)
    else:
        with np.errstate(all="ignore"):
            want = reference(name, x).astype(np.float32)
        got = run_unop(name, "float32", x)
    assert_bitwise(got, want, f"float32 {name}")


def test_apply_broadcasts_like_a_ufunc_and_returns_fresh_arrays():
    a = np.linspace(0.5, 4.0, 6).reshape(2, 3)
    b = np.array([[0.5], [3.0]])
    r = libm.apply("pow", a, b)
    assert r.shape == (2, 3) and r.flags.c_contiguous
    assert_bitwise(r, reference("pow", a, b), "pow broadcast (2,3) x (2,1)")
    x = np.arange(4.0)
    r = libm.apply("exp", x)
    assert r is not x and not np.shares_memory(r, x)
    assert libm.apply("log", np.empty(0)).shape == (0,)
    with pytest.raises(KeyError):
        libm.apply("cbrt", x)
    with pytest.raises(TypeError):
        libm.apply("pow", x)
