"""The type-oblivious proof of a generic kernel (frontend/check/generic_opaque.py)
rests on the z3 encoding of every float op being unconstrained: an opaque
value, typed float32 in the opaque kernel, stands for a value of any
instantiation (an int8, a vec3d component), so an op on it must not tell the
prover anything that some instantiation breaks (`x - x == 0` is false for
no integer, but `x < x` false, `abs(x) >= 0` or `int(float(i)) == i` are
facts int8 or a NaN would break in one direction or the other).

Each test builds a one-op MIR kernel, encodes it as the prover does
(encoders/smt/encoder.py: ThreadEncoding) and asks z3 whether the op's
result can take values that contradict every relation to its operands:
if the encoding ever constrained the op, one of these checks fails."""
from __future__ import annotations

import pytest
import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.encoders.smt.launch import LaunchModel
from verikern.mir.cfg import CfgShape
from verikern.mir.ops import BINARY, COMPARE, FLOAT_CLASS, UNARY
from verikern.mir.parser import parse_kernel

FLOAT_BINARY = sorted(n for n, o in BINARY.items() if FLOAT_CLASS in o.types)
FLOAT_UNARY = sorted(n for n, o in UNARY.items() if FLOAT_CLASS in o.types)
FLOAT_COMPARE = sorted(n for n, o in COMPARE.items() if FLOAT_CLASS in o.types)


def _encoding(text: str):
    """(facts, value terms, abstract value ids) of the one-thread encoding of MIR `text`."""
    kernel = parse_kernel(text)
    launch = LaunchModel(kernel, None, None)
    enc = ThreadEncoding(kernel, CfgShape(kernel), launch, "A")
    return list(enc.facts) + list(launch.facts), enc.val, enc.abstract


def _encode(body: str, result_type: str):
    """The facts and the result's term of `%r` defined by `body` on two loads x, y
    of a never-written float32 array (the same element: x == y is a fact)."""
    facts, val, abstract = _encoding(
        "kernel probe(a: array<float32, 1>) [launch_ndim=1] {\n"
        "entry0:\n"
        "  %x.0: float32 = load a[0:int32]\n"
        "  %y.1: float32 = load a[0:int32]\n"
        f"  %r.2: {result_type} = {body}\n"
        "  ret\n"
        "}\n")
    # what the prover adds for two loads of one element of a never-written array
    return facts + [val[0] == val[1]], val[2], val[0], 2 in abstract


def _solver(facts) -> z3.Solver:
    """A solver holding `facts`, asked once per claim by `_can`."""
    s = z3.Solver()
    s.add(*facts)
    return s


def _can(s: z3.Solver, claim) -> bool:
    """Are the facts of `s` and `claim` satisfiable together? The claim in a push/pop scope,
    so the facts are bit-blasted once per test, not once per claim (a tenth of the CPU)."""
    s.push()
    try:
        s.add(claim)
        return s.check() == z3.sat
    finally:
        s.pop()


@pytest.mark.parametrize("op", FLOAT_BINARY)
@pytest.mark.parametrize("operands", ["%x.0, %x.0", "%x.0, %y.1"])
def test_a_float_binary_op_of_opaque_values_is_unconstrained(op, operands):
    facts, r, x, abstract = _encode(f"{op} {operands}", "float32")
    s = _solver(facts)
    assert abstract      # and a counterexample through it is never taken as exact
    # x - x may be nonzero, x * 0 anything, x + x differ from 2x ...: every bit pattern is possible
    for pattern in (0, 1, 0x3F800000, 0x7FC00000, 0xFFFFFFFF):
        assert _can(s, r == z3.BitVecVal(pattern, 32)), (op, operands, hex(pattern))
    assert _can(s, r == x) and _can(s, r != x)


@pytest.mark.parametrize("op", FLOAT_UNARY)
def test_a_float_unary_op_of_an_opaque_value_is_unconstrained(op):
    facts, r, x, abstract = _encode(f"{op} %x.0", "float32")
    s = _solver(facts)
    assert abstract
    for pattern in (0, 0x80000000, 0x3F800000, 0xBF800000, 0x7FC00000):
        assert _can(s, r == z3.BitVecVal(pattern, 32)), (op, hex(pattern))
    assert _can(s, r == x) and _can(s, r != x)


@pytest.mark.parametrize("op", FLOAT_COMPARE)
@pytest.mark.parametrize("operands", ["%x.0, %x.0", "%x.0, %y.1"])
def test_a_float_compare_of_opaque_values_is_a_fresh_bool(op, operands):
    """`x < x` may be true and `x == x` false: an instantiation's compare is
    not the float one (a vector's `!=` of equal components, a NaN)."""
    facts, r, _, _ = _encode(f"cmp.{op} {operands}", "bool")
    s = _solver(facts)
    assert _can(s, r) and _can(s, z3.Not(r)), (op, operands)


@pytest.mark.parametrize("target", ["int8", "int32", "uint32", "int64", "bool", "float64", "float16"])
def test_a_conversion_of_an_opaque_value_is_unconstrained(target):
    """`int(x)` of an opaque value is any integer: an integer instantiation's
    `int(k)` is `k` itself, whatever it is."""
    facts, r, _, _ = _encode("cast %x.0", target)
    s = _solver(facts)
    if target == "bool":
        assert _can(s, r) and _can(s, z3.Not(r))
        return
    bits = r.size()
    for value in (0, 1, (1 << (bits - 1)) - 1, 1 << (bits - 1), (1 << bits) - 1):
        assert _can(s, r == z3.BitVecVal(value, bits)), (target, value)


@pytest.mark.parametrize("source", ["int8", "int32", "uint64"])
def test_a_conversion_to_float_and_back_does_not_give_the_integer_back(source):
    """`int(float(i))` is no fact about `i` (an opaque kernel's `float(k)` of an
    integer instantiation's key is its own value, which the float carrier does not know)."""
    facts, val, _ = _encoding(
        f"kernel probe(a: array<{source}, 1>) [launch_ndim=1] {{\n"
        "entry0:\n"
        f"  %i.0: {source} = load a[0:int32]\n"
        "  %f.1: float32 = cast %i.0\n"
        f"  %r.2: {source} = cast %f.1\n"
        "  ret\n"
        "}\n")
    s = _solver(facts)
    assert _can(s, val[2] != val[0]) and _can(s, val[2] == val[0])
