"""Op semantics of the simulator against hand-computed values and numpy float32."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simkit import run_binop, run_unop
from verikern.backends.simulator import INSTRUCTION_TABLE, compile_instruction
from verikern.errors import DivisionByZeroError, DivisionOverflowError, IntegerDivisionError
from verikern.mir import ops as T
from verikern.mir.nodes import INSTRUCTION_CLASSES, TERMINATOR_CLASSES, Phi

I32_MIN, I32_MAX = -2**31, 2**31 - 1


def test_dispatch_table_covers_every_mir_class():
    for cls in INSTRUCTION_CLASSES + (Phi,) + TERMINATOR_CLASSES:
        assert cls in INSTRUCTION_TABLE, cls.__name__


def test_dispatch_default_raises():
    class Strange:
        OPCODE = "strange"
    with pytest.raises(NotImplementedError, match="Strange"):
        compile_instruction(Strange(), None)


def test_int32_add_mul_wrap():
    out = run_binop("add", "int32", [I32_MAX, I32_MIN, 5], [1, -1, -7])
    assert out.tolist() == [I32_MIN, I32_MAX, -2]
    out = run_binop("mul", "int32", [65536, 3, -1], [65536, 1 << 30, I32_MIN])
    assert out.tolist() == [0, -(1 << 30), I32_MIN]


def test_uint8_wrap_and_underflow():
    assert run_binop("add", "uint8", [250, 255], [10, 1]).tolist() == [4, 0]
    assert run_binop("mul", "uint8", [16, 200], [16, 2]).tolist() == [0, 144]
    assert run_binop("sub", "uint8", [0, 3], [1, 5]).tolist() == [255, 254]
    assert run_binop("sub", "uint32", [0], [1]).tolist() == [2**32 - 1]


def test_floordiv_and_mod_signs():
    a = [7, -7, 7, -7, 0]
    b = [2, 2, -2, -2, 3]
    assert run_binop("floordiv", "int32", a, b).tolist() == [3, -4, -4, 3, 0]
    assert run_binop("mod", "int32", a, b).tolist() == [1, -1, 1, -1, 0]      # C remainder
    assert run_binop("div", "int32", a, b).tolist() == [3, -3, -3, 3, 0]      # truncation


def test_int_min_divided_by_minus_one_wraps_on_int8_and_int16():
    # Warp's C++ divides int8/int16 in int, and the quotient converts back wrapped
    assert run_binop("floordiv", "int8", [-128], [-1]).tolist() == [-128]
    assert run_binop("div", "int16", [-2**15], [-1]).tolist() == [-2**15]
    assert run_binop("mod", "int8", [-128], [-1]).tolist() == [0]
    assert run_binop("div", "int32", [I32_MIN + 1, I32_MIN], [-1, 1]).tolist() == \
        [I32_MAX, I32_MIN]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["div", "floordiv", "mod"])
def test_int_min_divided_by_minus_one_faults_on_int32_and_int64(op, dtype):
    # real Warp's CPU run dies of SIGFPE on each of these (docs/SOUNDNESS.md)
    lo = -2**31 if dtype == "int32" else -2**63
    with pytest.raises(DivisionOverflowError) as e:
        run_binop(op, dtype, [5, lo, lo], [-1, 2, -1], block_dim=2)
    assert (e.value.thread, e.value.block) == (0, 1) and e.value.kind == "div-zero"
    assert isinstance(e.value, IntegerDivisionError)
    assert f"{lo} {T.BINARY[op].symbol} -1 does not fit {dtype}" in str(e.value)
    assert "global thread 2" in str(e.value)


def test_unsigned_division():
    assert run_binop("div", "uint32", [2**32 - 1, 7], [2, 7]).tolist() == [2**31 - 1, 1]
    assert run_binop("mod", "uint8", [255], [10]).tolist() == [5]


@pytest.mark.parametrize("op", ["div", "floordiv", "mod"])
def test_division_by_zero_raises(op):
    with pytest.raises(DivisionByZeroError) as e:
        run_binop(op, "int32", [1, 2, 3, 4], [1, 1, 0, 1], block_dim=2)
    assert e.value.thread == 0 and e.value.block == 1
    assert "by zero" in str(e.value) and "global thread 2" in str(e.value)


def test_float_division_by_zero_is_ieee():
    out = run_binop("div", "float32", [1.0, -1.0, 0.0], [0.0, 0.0, 0.0])
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


def test_shifts_take_amount_modulo_width():
    assert run_binop("shl", "int32", [1, 1, 1, -1], [31, 32, 33, 4]).tolist() == \
        [I32_MIN, 1, 2, -16]
    assert run_binop("shr", "int32", [-16, -1, 256], [2, 40, 36]).tolist() == [-4, -1, 16]
    assert run_binop("shr", "uint32", [2**32 - 16], [2]).tolist() == [(2**32 - 16) >> 2]
    assert run_binop("shl", "uint8", [255, 1], [1, 9]).tolist() == [254, 2]
    assert run_binop("shr", "int8", [-128], [7]).tolist() == [-1]


def test_neg_and_abs_of_int_min_wrap():
    assert run_unop("neg", "int32", [I32_MIN, 5]).tolist() == [I32_MIN, -5]
    assert run_unop("abs", "int32", [I32_MIN, -5]).tolist() == [I32_MIN, 5]
    assert run_unop("invert", "uint8", [0, 0xF0]).tolist() == [255, 0x0F]


def test_int_min_max_bitwise():
    assert run_binop("min", "int32", [-3, 4], [2, -9]).tolist() == [-3, -9]
    assert run_binop("max", "uint16", [65535, 0], [1, 2]).tolist() == [65535, 2]
    assert run_binop("and", "int32", [0b1100], [0b1010]).tolist() == [0b1000]
    assert run_binop("xor", "uint8", [0xFF], [0x0F]).tolist() == [0xF0]


def test_float_min_max_ignore_nan():
    out = run_binop("min", "float32", [np.nan, 1.0, 2.0], [3.0, np.nan, 1.0])
    assert out.tolist() == [3.0, 1.0, 1.0]
    out = run_binop("max", "float32", [np.nan, -1.0], [3.0, np.nan])
    assert out.tolist() == [3.0, -1.0]


def test_float_compares_are_ordered():
    nan = np.nan
    assert run_binop("ne", "float32", [nan, 1.0], [nan, 1.0], compare=True).tolist() == [True, False]
    assert run_binop("eq", "float32", [nan, 1.0], [nan, 1.0], compare=True).tolist() == [False, True]
    assert run_binop("lt", "float32", [nan, 1.0], [1.0, 2.0], compare=True).tolist() == [False, True]
    # signedness from the operand type
    assert run_binop("lt", "uint32", [2**32 - 1], [1], compare=True).tolist() == [False]
    assert run_binop("lt", "int32", [-1], [1], compare=True).tolist() == [True]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=40),
       st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=40))
def test_float32_arithmetic_matches_numpy(xs, ys):
    n = min(len(xs), len(ys))
    a = np.array(xs[:n], dtype=np.float32)
    b = np.array(ys[:n], dtype=np.float32)
    with np.errstate(all="ignore"):
        for op, ref in (("add", a + b), ("sub", a - b), ("mul", a * b), ("div", a / b)):
            out = run_binop(op, "float32", a, b)
            np.testing.assert_array_equal(out, ref)
            assert out.dtype == np.float32


def test_float32_transcendentals_are_float64_rounded_once():
    x = np.array([0.1, 1.0, 2.5, 10.0, -3.0], dtype=np.float32)
    for op, fn in (("sin", np.sin), ("cos", np.cos), ("exp", np.exp)):
        ref = fn(x.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(run_unop(op, "float32", x), ref)
    pos = np.abs(x)
    np.testing.assert_array_equal(run_unop("log", "float32", pos),
                                  np.log(pos.astype(np.float64)).astype(np.float32))
    np.testing.assert_array_equal(run_unop("sqrt", "float32", pos), np.sqrt(pos))
    out = run_binop("pow", "float32", [2.0, 10.0], [0.5, 3.0])
    assert out.tolist() == [np.float32(2.0 ** 0.5), 1000.0]


def test_float_floordiv_and_mod():
    assert run_binop("floordiv", "float32", [7.0, -7.0], [2.0, 2.0]).tolist() == [3.0, -4.0]
    assert run_binop("mod", "float32", [-7.0, 7.5], [2.0, 2.0]).tolist() == [-1.0, 1.5]


def test_casts():
    # float -> int truncates toward zero
    assert run_unop("cast", "float32", [2.7, -2.7, 0.5], "int32").tolist() == [2, -2, 0]
    # int -> int by the source signedness
    assert run_unop("cast", "int8", [-1, 127], "uint32").tolist() == [2**32 - 1, 127]
    assert run_unop("cast", "uint8", [255], "int32").tolist() == [255]
    assert run_unop("cast", "int32", [300, -1], "uint8").tolist() == [44, 255]
    # number -> bool is != 0, bool -> number is 0/1
    assert run_unop("cast", "float32", [0.0, -0.0, 2.0, np.nan], "bool").tolist() == \
        [False, False, True, True]
    assert run_unop("cast", "bool", [True, False], "float32").tolist() == [1.0, 0.0]
    # int -> float rounds to nearest; float64 -> float32 rounds to nearest
    assert run_unop("cast", "int32", [16777217], "float32").tolist() == [16777216.0]
    assert run_unop("cast", "float64", [0.1], "float32").tolist() == [np.float32(0.1)]


def test_float16_is_rounded_to_float16():
    # 2048 + 1 is not representable in float16 (spacing 2): ties to even
    assert run_binop("add", "float16", [2048.0, 2048.0], [1.0, 3.0]).tolist() == [2048.0, 2052.0]
    out = run_binop("mul", "float16", [0.1], [3.0])
    assert out.dtype == np.float16 and out[0] == np.float16(np.float16(0.1) * np.float16(3.0))


def test_int64_and_uint64_extremes():
    assert run_binop("add", "int64", [2**63 - 1], [1]).tolist() == [-2**63]
    assert run_binop("sub", "uint64", [0], [1]).tolist() == [2**64 - 1]
    assert run_binop("floordiv", "int64", [-2**63], [1]).tolist() == [-2**63]
    assert run_binop("shr", "uint64", [2**64 - 1], [63]).tolist() == [1]
    assert run_binop("lt", "uint64", [2**63], [1], compare=True).tolist() == [False]


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def _py_reference(op, a, b, bits, signed):
    """The MIR meaning of `op`, computed with Python ints."""
    if op in ("div", "mod"):
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)       # truncation
        return _wrap(q, bits, signed) if op == "div" else _wrap(a - q * b, bits, signed)
    if op == "floordiv":
        return _wrap(a // b, bits, signed)
    if op in ("shl", "shr"):
        s = b & (bits - 1)
        return _wrap(a << s, bits, signed) if op == "shl" else _wrap(a >> s, bits, signed)
    return _wrap({"add": a + b, "sub": a - b, "mul": a * b}[op], bits, signed)


@pytest.mark.parametrize("dtype,bits,signed", [("int32", 32, True), ("uint32", 32, False),
                                               ("int8", 8, True), ("uint16", 16, False),
                                               ("int64", 64, True)])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_integer_ops_match_python_reference(dtype, bits, signed, data):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    ints = st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, 1, -1 if signed else 2]))
    pairs = data.draw(st.lists(st.tuples(ints, ints), min_size=1, max_size=12))
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    for op in ("add", "sub", "mul", "shl", "shr"):
        got = run_binop(op, dtype, a, b).tolist()
        assert got == [_py_reference(op, x, y, bits, signed) for x, y in zip(a, b)], op
    nz = [y if y != 0 and not (bits >= 32 and signed and (x, y) == (lo, -1)) else 1
          for x, y in zip(a, b)]
    for op in ("div", "floordiv", "mod"):
        got = run_binop(op, dtype, a, nz).tolist()
        assert got == [_py_reference(op, x, y, bits, signed) for x, y in zip(a, nz)], op
