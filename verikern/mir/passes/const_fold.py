"""Constant folding with exact machine semantics (docs/MIR.md).

Invariant: an instruction is folded only when all its operands are constants
and the result is exactly what the simulator would compute: integer and bool
ops are the op table's reference semantics (verikern.mir.ops): integer ops wrap
at the type's width, `floordiv` floors, `div` truncates, `mod` takes the
dividend's sign, shifts use the amount modulo the width; a division or
modulo by zero is never folded (it stays for the prover and the simulator);
float arithmetic is folded in the type's precision for + - * / min max neg
abs and comparisons only. Folded instructions whose result is a constant are
replaced by that constant at every use (the instruction itself is then dead
and left to DCE).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..nodes import (
    INSTRUCTION_CLASSES, Assert, Atomic, Barrier, BinOp, Cast, Compare, Const, Kernel, Load, Operand, Requires,
    RequiresArray, Select, ShapeOf, Special, Store, UnaryOp, result_of, Block,
)
from ..ops import DIVISION_FAULTS, UndefinedOp, binary_reference, compare_reference, unary_reference
from ..types import ScalarType
from .base import rebuild, replace_in_rounds, substitute


def _const(v: Operand) -> Any:
    """The value of an operand `fold` has checked to be a constant."""
    assert isinstance(v, Const), v
    return v.value


_FLOAT_NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def fold_int_binop(op: str, a: int, b: int, t: ScalarType):
    """The wrapped result of an integer/bool binop (the op table's reference
    semantics), or None if not foldable (a zero divisor, INT_MIN / -1 on
    int32/int64, or an op the table does not define on t): a faulting
    division stays, with its obligation."""
    try:
        return binary_reference(op, a, b, t)
    except (*DIVISION_FAULTS, UndefinedOp):
        return None


def fold_float_binop(op: str, a: float, b: float, t: ScalarType):
    if op in ("min", "max"):  # fminf/fmaxf: a NaN operand yields the other one
        if math.isnan(a):
            return b
        if math.isnan(b):
            return a
        return min(a, b) if op == "min" else max(a, b)
    if op not in ("add", "sub", "mul", "div"):
        return None
    f = _FLOAT_NP[t.name]
    with np.errstate(all="ignore"):
        x, y = f(a), f(b)
        r = {"add": x + y, "sub": x - y, "mul": x * y,
             "div": x / y if y != 0 else None}[op]
    if r is None:
        return None
    return float(f(r))


def fold_compare(op: str, a, b) -> bool:
    """Compare two constants of one type (floats: not NaN, see _fold_compare)."""
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b,
            "gt": a > b, "ge": a >= b}[op]


def _fold_binop(ins: BinOp, t):
    a, b = _const(ins.lhs), _const(ins.rhs)
    r = fold_float_binop(ins.op, a, b, t) if t.is_float else fold_int_binop(ins.op, a, b, t)
    return None if r is None else Const(r, t)


def _fold_compare(ins: Compare, t):
    a, b = _const(ins.lhs), _const(ins.rhs)
    if not ins.lhs.type.is_float:
        return Const(compare_reference(ins.op, a, b, ins.lhs.type), t)
    if math.isnan(a) or math.isnan(b):
        return Const(ins.op == "ne", t)
    return Const(fold_compare(ins.op, a, b), t)


def _fold_unary(ins: UnaryOp, t):
    a = _const(ins.operand)
    if not t.is_float:
        try:
            return Const(unary_reference(ins.op, a, t), t)
        except UndefinedOp:
            return None
    if ins.op == "neg":
        return Const(-a, t)
    if ins.op == "abs":
        return Const(abs(a), t)
    return None  # transcendental and rounding functions are left to the backends


def _fold_cast(ins: Cast, t):
    src = ins.operand.type
    a = _const(ins.operand)
    if t.is_bool:
        return Const(a != 0, t)
    if src.is_bool:
        return Const(float(a) if t.is_float else int(a), t)
    if t.is_int and src.is_int:
        return Const(t.wrap(a), t)
    if t.is_float:
        with np.errstate(all="ignore"):
            return Const(float(_FLOAT_NP[t.name](a)), t)
    return None  # float -> int: out-of-range is unspecified, leave it


def _fold_select(ins: Select, t):
    return ins.if_true if _const(ins.cond) else ins.if_false


def _not_foldable(ins, t):
    return None


# OPCODE -> folder(ins, result type) called when every operand is a Const
FOLDERS = {
    BinOp.OPCODE: _fold_binop, Compare.OPCODE: _fold_compare, UnaryOp.OPCODE: _fold_unary,
    Cast.OPCODE: _fold_cast, Select.OPCODE: _fold_select,
    Special.OPCODE: _not_foldable, ShapeOf.OPCODE: _not_foldable, Load.OPCODE: _not_foldable,
    Store.OPCODE: _not_foldable, Atomic.OPCODE: _not_foldable, Barrier.OPCODE: _not_foldable,
    Assert.OPCODE: _not_foldable, Requires.OPCODE: _not_foldable,
    RequiresArray.OPCODE: _not_foldable,
}
assert set(FOLDERS) == {c.OPCODE for c in INSTRUCTION_CLASSES}


def fold(ins):
    """The constant (or operand) an instruction computes, or None."""
    folder = FOLDERS.get(ins.OPCODE)
    if folder is None:
        raise TypeError(f"const-fold has no rule for MIR instruction {type(ins).__name__}")
    if isinstance(ins, Select) and isinstance(ins.cond, Const):
        return _fold_select(ins, ins.result.type)
    ops = ins.operands()
    if getattr(ins, "result", None) is None or not ops \
            or not all(isinstance(o, Const) for o in ops):
        return None
    return folder(ins, ins.result.type)


class ConstantFolding:
    """Folds in rounds, as sweeping the kernel until nothing folds would: in
    each round the instructions whose operands the previous rounds replaced
    are tried again (all of them in the first), with those operands
    replaced; what folds in a round is replaced, at the end, by one
    substitution, and the folded instructions are dropped. Linear in the
    kernel plus one retry per replaced operand."""

    name = "const-fold"

    def run(self, kernel: Kernel) -> Kernel:
        instrs = [ins for b in kernel.blocks for ins in b.instrs]
        mapping = replace_in_rounds(instrs, range(len(instrs)), fold, _folded)
        if not mapping:
            return kernel
        # the folded instructions now compute constants nobody reads
        return _drop(substitute(kernel, mapping), mapping)


def _folded(ins, mapping) -> bool:
    res = result_of(ins)
    return res is not None and res.id in mapping


def _drop(kernel: Kernel, mapping) -> Kernel:
    """Remove the folded instructions (they have no effects; a folded
    division has a non-zero constant divisor)."""
    blocks = []
    for b in kernel.blocks:
        instrs = tuple(i for i in b.instrs if (r := result_of(i)) is None or r.id not in mapping)
        blocks.append(b if len(instrs) == len(b.instrs) else Block(b.label, b.phis, instrs, b.terminator))
    return rebuild(kernel, blocks)
