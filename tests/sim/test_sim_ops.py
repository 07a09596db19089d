"""Op semantics of the simulator against hand-computed values and numpy float32."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sim.simkit import run_binop, run_unop
from verikern.backends.simulator import INSTRUCTION_TABLE, compile_instruction
from verikern.errors import DivisionByZeroError
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


def test_int_min_divided_by_minus_one_wraps():
    assert run_binop("floordiv", "int32", [I32_MIN], [-1]).tolist() == [I32_MIN]
    assert run_binop("div", "int32", [I32_MIN], [-1]).tolist() == [I32_MIN]
    assert run_binop("mod", "int32", [I32_MIN], [-1]).tolist() == [0]
    assert run_binop("floordiv", "int8", [-128], [-1]).tolist() == [-128]


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
