"""The one table of MIR op facts: which operand types each op accepts, whether
it can trap, what an instruction does to memory, and the reference semantics
of every integer and bool op as a Python function on machine integers.

Every other layer reads these facts from here (the verifier, constant
folding, DCE, the input evaluator, the prover's obligation collection) or is
tested against them (the simulator's, SMT encoder's and LLVM lowering's
dispatch tables must cover exactly the (op, type class) pairs listed here,
and their integer semantics must equal `binary_reference` and friends).

Invariants:
- `BINARY`, `COMPARE` and `UNARY` are keyed by op name; `OpInfo.types` is the
  set of operand type classes ("bool", "int" for signed and unsigned
  integers, "float") on which the op is defined.  Nothing else is legal MIR.
- `OpInfo.int_ref` is set exactly when "int" is in `types`, `OpInfo.bool_ref`
  exactly when "bool" is (checked at import).
- A reference function takes operands already in their type's range (ints as
  Python ints, bools as Python bools) and returns the result in range: ints
  wrap at the width (two's complement), `div` truncates, `floordiv` floors,
  `mod` takes the dividend's sign (C `%`), shift amounts are taken modulo the
  width, `shr` is arithmetic for signed types.  An op with `traps` raises
  `ZeroDivisionError` for a zero integer divisor and `DivisionOverflow` for
  INT_MIN and -1 on a type where that quotient traps (`division_can_overflow`:
  int32, int64); both are MIR's `div-zero` error.  On int8/int16 INT_MIN / -1
  wraps to INT_MIN and its remainder is 0 (Warp's C++ computes them in int).
- Bool admits only `and or xor` (binary), `not` (unary) and every comparison
  (false < true).  `min`/`max`/`neg`/`abs` on bool are ill-typed MIR.
- `INSTRUCTION_FACTS` is keyed by instruction `OPCODE` and holds, for every
  instruction class, whether it reads or writes memory and whether it is pure
  (no effect and no obligation of its own; a BinOp that may trap is the one
  exception, see `verikern.mir.facts.may_trap`).

This module imports only `verikern.mir.types`, so `verikern.mir.nodes` can
derive its op-name tuples from it.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Callable, Optional

from .types import ScalarType

BOOL_CLASS, INT_CLASS, FLOAT_CLASS = "bool", "int", "float"
TYPE_CLASSES = (BOOL_CLASS, INT_CLASS, FLOAT_CLASS)


def type_class(t: ScalarType) -> str:
    """"bool", "int" (signed or unsigned) or "float"."""
    if t.is_bool:
        return BOOL_CLASS
    return INT_CLASS if t.is_int else FLOAT_CLASS


# ------------------------------------------------------ unbounded helpers
#: the narrowest signed width whose INT_MIN / -1 traps: Warp's C++ promotes
#: int8 and int16 operands to int, where the quotient fits (it converts back
#: wrapped), while int32 and int64 divide in their own width, which x86's
#: idiv traps on (SIGFPE kills Warp's CPU run) and C++ leaves undefined
DIVISION_OVERFLOW_MIN_BITS = 32


class DivisionOverflow(ArithmeticError):
    """INT_MIN / -1 (or its `//`, `%`) on int32/int64: MIR's `div-zero` error,
    as a zero divisor is (the reference raises it; see `division_can_overflow`)."""


#: what a trapping op's reference raises: a zero divisor or an overflowing quotient
DIVISION_FAULTS = (ZeroDivisionError, DivisionOverflow)


def division_can_overflow(t: ScalarType) -> bool:
    """Does INT_MIN / -1 (and // and %) fault on integer type t (int32, int64)?"""
    return t.is_signed and t.bits >= DIVISION_OVERFLOW_MIN_BITS


def division_overflows(a: int, b: int, t: ScalarType) -> bool:
    """Is a / b (or //, %) on in-range operands of type t the faulting INT_MIN / -1?"""
    return division_can_overflow(t) and a == t.min_value and b == -1


def _division(fn: Callable[[int, int], int]) -> Callable:
    """The reference of a trapping op from its unbounded function: wrapped
    to t, raising DivisionOverflow where `division_overflows`."""
    def ref(a: int, b: int, t: ScalarType) -> int:
        if division_overflows(a, b, t):
            raise DivisionOverflow(f"{t.name} division overflow: {a} / -1")
        return t.wrap(fn(a, b))
    return ref


def trunc_div(a: int, b: int) -> int:
    """a / b rounded toward zero (C), on unbounded integers; b != 0."""
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_mod(a: int, b: int) -> int:
    """The remainder with the dividend's sign (C `%`): a == trunc_div(a, b)*b + r."""
    return a - trunc_div(a, b) * b


#: add, sub and mul on unbounded numbers (Python ints, or floats): what the op
#: means before its result is wrapped or rounded to a type
UNBOUNDED_RING: dict[str, Callable] = {"add": operator.add, "sub": operator.sub,
                                       "mul": operator.mul}


def floor_div(a: int, b: int) -> int:
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    return a // b


def _shift_amount(b: int, t: ScalarType) -> int:
    return b & (t.bits - 1)


def _shr(a: int, b: int, t: ScalarType) -> int:
    # a is in range and read by t's signedness, so Python's >> is arithmetic
    # for signed and logical for unsigned values
    return a >> _shift_amount(b, t)


@dataclass(frozen=True)
class OpInfo:
    """Facts about one op of BinOp, Compare or UnaryOp.

    kind: "binary", "compare" or "unary"; types: operand type classes it is
    defined on; traps: integer operands with a zero divisor, or INT_MIN and
    -1 where `division_can_overflow`, are an error (obligation `div-zero`); int_ref / bool_ref: reference semantics on
    machine integers / bools (`(a, b, t)` or `(a, t)`); summary: one line;
    symbol: the Python operator that spells it in kernel source (`//`, `<=`),
    None for an op spelled as a call (`min`, `sqrt`). Every printer and
    message reads the symbol from here."""

    name: str
    kind: str
    types: frozenset
    summary: str
    int_ref: Optional[Callable] = None
    bool_ref: Optional[Callable] = None
    traps: bool = False
    symbol: Optional[str] = None

    def allows(self, t: ScalarType) -> bool:
        return type_class(t) in self.types

    @property
    def arity(self) -> int:
        return 1 if self.kind == "unary" else 2


def _op(name, kind, types, summary, int_ref=None, bool_ref=None, traps=False,
        symbol=None) -> OpInfo:
    return OpInfo(name, kind, frozenset(types), summary, int_ref, bool_ref, traps, symbol)


_NUM = (INT_CLASS, FLOAT_CLASS)
_BITS = (BOOL_CLASS, INT_CLASS)

BINARY: dict[str, OpInfo] = {o.name: o for o in (
    _op("add", "binary", _NUM, "sum; ints wrap",
        lambda a, b, t: t.wrap(a + b), symbol="+"),
    _op("sub", "binary", _NUM, "difference; ints wrap",
        lambda a, b, t: t.wrap(a - b), symbol="-"),
    _op("mul", "binary", _NUM, "product; ints wrap",
        lambda a, b, t: t.wrap(a * b), symbol="*"),
    _op("div", "binary", _NUM, "ints: truncating (C); INT_MIN / -1 wraps on int8/16, "
        "faults on int32/64; floats: IEEE", _division(trunc_div), traps=True, symbol="/"),
    _op("floordiv", "binary", _NUM, "ints: rounds toward -inf; floats: floor(a / b)",
        _division(floor_div), traps=True, symbol="//"),
    _op("mod", "binary", _NUM, "ints: dividend's sign (C %); floats: fmod",
        _division(trunc_mod), traps=True, symbol="%"),
    _op("min", "binary", _NUM, "smaller (floats: a NaN yields the other operand)",
        lambda a, b, t: min(a, b)),
    _op("max", "binary", _NUM, "larger (floats: a NaN yields the other operand)",
        lambda a, b, t: max(a, b)),
    _op("and", "binary", _BITS, "bitwise on ints, logical on bool",
        lambda a, b, t: t.wrap(a & b), lambda a, b, t: bool(a) and bool(b), symbol="&"),
    _op("or", "binary", _BITS, "bitwise on ints, logical on bool",
        lambda a, b, t: t.wrap(a | b), lambda a, b, t: bool(a) or bool(b), symbol="|"),
    _op("xor", "binary", _BITS, "bitwise on ints, logical on bool",
        lambda a, b, t: t.wrap(a ^ b), lambda a, b, t: bool(a) != bool(b), symbol="^"),
    _op("shl", "binary", (INT_CLASS,), "left shift by b mod width; wraps",
        lambda a, b, t: t.wrap(a << _shift_amount(b, t)), symbol="<<"),
    _op("shr", "binary", (INT_CLASS,), "right shift by b mod width; arithmetic if signed",
        _shr, symbol=">>"),
    _op("pow", "binary", (FLOAT_CLASS,), "C pow of the operands widened to float64",
        symbol="**"),
    _op("atan2", "binary", (FLOAT_CLASS,),
        "C atan2(a, b) (the angle of the point (b, a)) of the operands widened to float64"),
)}


def _cmp(name, symbol, fn) -> OpInfo:
    ref = lambda a, b, t: fn(int(a), int(b))  # noqa: E731  (bools compare as 0/1)
    return _op(name, "compare", TYPE_CLASSES, f"bool result; {name}", ref, ref, symbol=symbol)


COMPARE: dict[str, OpInfo] = {o.name: o for o in (
    _cmp("eq", "==", lambda a, b: a == b), _cmp("ne", "!=", lambda a, b: a != b),
    _cmp("lt", "<", lambda a, b: a < b), _cmp("le", "<=", lambda a, b: a <= b),
    _cmp("gt", ">", lambda a, b: a > b), _cmp("ge", ">=", lambda a, b: a >= b),
)}


def _float_unary(name: str, summary: str) -> OpInfo:
    return _op(name, "unary", (FLOAT_CLASS,), summary)


UNARY: dict[str, OpInfo] = {o.name: o for o in (
    _op("neg", "unary", _NUM, "negation; ints wrap (-INT_MIN == INT_MIN)",
        lambda a, t: t.wrap(-a)),
    _op("not", "unary", (BOOL_CLASS,), "logical not", None, lambda a, t: not a),
    _op("invert", "unary", (INT_CLASS,), "bitwise not", lambda a, t: t.wrap(~a)),
    _op("abs", "unary", _NUM, "absolute value; ints wrap (abs(INT_MIN) == INT_MIN)",
        lambda a, t: t.wrap(abs(a))),
    _float_unary("sqrt", "square root (fast-math may approximate)"),
    _float_unary("sqrt_precise", "correctly rounded square root"),
    _float_unary("sin", "C sin"), _float_unary("cos", "C cos"), _float_unary("tan", "C tan"),
    _float_unary("exp", "C exp"), _float_unary("log", "C log"),
    _float_unary("erf", "C erf"), _float_unary("erfc", "C erfc"),
    _float_unary("floor", "round toward -inf"), _float_unary("ceil", "round toward +inf"),
)}

OPS_BY_KIND: dict[str, dict[str, OpInfo]] = {
    "binary": BINARY, "compare": COMPARE, "unary": UNARY,
}


def symbols(*kinds: str) -> dict[str, str]:
    """op name -> source operator symbol of every op of `kinds` spelled as an
    operator (binary and compare ops; a unary op's spelling depends on its
    operand, so unary ops carry none)."""
    return {name: info.symbol for kind in kinds for name, info in OPS_BY_KIND[kind].items()
            if info.symbol is not None}


def _check_table() -> None:
    for table in OPS_BY_KIND.values():
        for name, info in table.items():
            assert name == info.name
            assert info.types <= set(TYPE_CLASSES), name
            assert (info.int_ref is not None) == (INT_CLASS in info.types), name
            assert (info.bool_ref is not None) == (BOOL_CLASS in info.types), name
            assert not info.traps or info.kind == "binary", name
            assert info.symbol is None or info.kind != "unary", name


_check_table()


class UndefinedOp(TypeError):
    """An op applied to a type it is not defined on (ill-typed MIR)."""


def _lookup(kind: str, op: str, t: ScalarType) -> Callable:
    info = OPS_BY_KIND[kind].get(op)
    if info is None:
        raise UndefinedOp(f"unknown {kind} op {op!r}")
    fn = info.bool_ref if t.is_bool else info.int_ref if t.is_int else None
    if fn is None:
        raise UndefinedOp(f"{kind} op {op!r} has no integer reference on {t.name}")
    return fn


def binary_reference(op: str, a, b, t: ScalarType):
    """The machine result of BinOp `op` on in-range operands of int/bool type t;
    raises ZeroDivisionError for a trapping op with b == 0 and DivisionOverflow
    for INT_MIN and -1 where `division_can_overflow`, UndefinedOp for an
    op/type pair MIR does not define (or a float type)."""
    return _lookup("binary", op, t)(a, b, t)


def compare_reference(op: str, a, b, t: ScalarType) -> bool:
    """The result of Compare `op` on in-range operands of int/bool type t."""
    return bool(_lookup("compare", op, t)(a, b, t))


def unary_reference(op: str, a, t: ScalarType):
    """The machine result of UnaryOp `op` on an in-range operand of int/bool type t."""
    return _lookup("unary", op, t)(a, t)


def allows(kind: str, op: str, t: ScalarType) -> bool:
    """Is `op` (of kind "binary", "compare" or "unary") defined on operands of type t?"""
    info = OPS_BY_KIND[kind].get(op)
    return info is not None and info.allows(t)


def pairs(kind: str, type_classes=TYPE_CLASSES) -> frozenset[tuple[str, str]]:
    """Every legal (op, type class) pair of one kind, restricted to `type_classes`."""
    return frozenset((name, c) for name, info in OPS_BY_KIND[kind].items()
                     for c in info.types if c in type_classes)


# ------------------------------------------------------ atomics
@dataclass(frozen=True)
class AtomicInfo:
    """Facts about one Atomic op: the element type classes it is defined on
    and its reference semantics on machine integers, `int_ref(old, value,
    compare, t) -> new element` (compare is None except for cas); the
    instruction's result is always the old element."""

    name: str
    types: frozenset
    summary: str
    int_ref: Callable

    def allows(self, t: ScalarType) -> bool:
        return type_class(t) in self.types


ATOMIC: dict[str, AtomicInfo] = {a.name: a for a in (
    AtomicInfo("add", frozenset(_NUM), "old + v; ints wrap", lambda o, v, c, t: t.wrap(o + v)),
    AtomicInfo("sub", frozenset(_NUM), "old - v; ints wrap", lambda o, v, c, t: t.wrap(o - v)),
    AtomicInfo("min", frozenset(_NUM), "min(old, v)", lambda o, v, c, t: min(o, v)),
    AtomicInfo("max", frozenset(_NUM), "max(old, v)", lambda o, v, c, t: max(o, v)),
    AtomicInfo("exch", frozenset(_NUM), "v", lambda o, v, c, t: v),
    AtomicInfo("cas", frozenset(_NUM), "v if old == compare else old",
               lambda o, v, c, t: v if o == c else o),
    AtomicInfo("and", frozenset((INT_CLASS,)), "old & v", lambda o, v, c, t: t.wrap(o & v)),
    AtomicInfo("or", frozenset((INT_CLASS,)), "old | v", lambda o, v, c, t: t.wrap(o | v)),
    AtomicInfo("xor", frozenset((INT_CLASS,)), "old ^ v", lambda o, v, c, t: t.wrap(o ^ v)),
)}


def atomic_reference(op: str, old, value, compare, t: ScalarType):
    """The element after Atomic `op` on in-range int operands of type t."""
    info = ATOMIC.get(op)
    if info is None or not info.allows(t) or not t.is_int:
        raise UndefinedOp(f"atomic {op!r} has no integer reference on {t.name}")
    return info.int_ref(old, value, compare, t)


# ------------------------------------------------------ instruction facts
@dataclass(frozen=True)
class InstrFacts:
    """Facts about one instruction class (keyed by its OPCODE).

    reads_memory / writes_memory: it reads / writes array elements (an access
    is also a `bounds` obligation); pure: no effect and no obligation, its
    result depends only on its operands and the launch, so it may be removed
    when unused (for BinOp only when it cannot trap); barrier: it
    synchronises the threads of a block."""

    opcode: str
    reads_memory: bool = False
    writes_memory: bool = False
    pure: bool = False
    barrier: bool = False


INSTRUCTION_FACTS: dict[str, InstrFacts] = {f.opcode: f for f in (
    InstrFacts("binop", pure=True),
    InstrFacts("cmp", pure=True),
    InstrFacts("unop", pure=True),
    InstrFacts("cast", pure=True),
    InstrFacts("select", pure=True),
    InstrFacts("special", pure=True),
    InstrFacts("shape", pure=True),
    InstrFacts("load", reads_memory=True),
    InstrFacts("store", writes_memory=True),
    InstrFacts("atomic", reads_memory=True, writes_memory=True),
    InstrFacts("barrier", barrier=True),
    InstrFacts("assert"),
    InstrFacts("requires"),
    InstrFacts("requires_array"),
)}
