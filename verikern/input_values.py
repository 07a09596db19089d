"""Concrete values of a kernel's uniform operands (parameters, shapes, launch
geometry and integer arithmetic on them) for input generation.

Invariant: `_UniformEvaluator.eval` returns the value the operand takes in
every thread of a launch with the given dims, block size, shapes and scalars
(exact machine arithmetic through z3's simplifier), or raises
`UnsupportedBoundError` for an operand that is not uniform, and
`InputGenerationError` when evaluating it would divide by zero.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from verikern.errors import VerikernError
from verikern.mir.nodes import (
    Assert, Atomic, Barrier, BinOp, Cast, Compare, Const, Kernel, Load, Operand,
    Phi, Requires, RequiresArray, Select, ShapeOf, Special, Store, UnaryOp,
)
from verikern.mir.types import ScalarType


class InputGenerationError(VerikernError):
    """No generated inputs satisfy the kernel's contracts, or an override is bad."""


class UnsupportedBoundError(InputGenerationError):
    """An array-contract bound is not integer arithmetic on uniform values."""


class _Unencodable(Exception):
    """An instruction outside integer arithmetic on uniform values."""


class _UniformTerms:
    """z3 terms (exact machine arithmetic) for the kernel's uniform values:
    scalar params, shapes and launch geometry, and integer/bool arithmetic on
    them. `shape_term(array, dim)` and `scalar_term(name)` supply the leaves
    (constants or solver variables); `side` collects divisor != 0 facts."""

    def __init__(self, kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                 shape_term: Callable[[str, int], Any], scalar_term: Callable[[str], Any]):
        import z3

        self.z3 = z3
        size = math.prod(dims)
        self.geometry = {"block_dim": block_dim, "grid_dim": -(-size // block_dim)}
        self.dims = dims
        self.shape_term = shape_term
        self.side: list = []
        self.terms: dict[int, Any] = {p.value.id: scalar_term(p.name) for p in kernel.scalar_params}
        self.defs = {ins.result.id: ins for _, ins in kernel.instructions()
                     if getattr(ins, "result", None) is not None}

    def const(self, value, t: ScalarType):
        if t.is_bool:
            return self.z3.BoolVal(bool(value))
        if t.is_float:
            raise _Unencodable("float")
        return self.z3.BitVecVal(t.wrap(int(value)), t.bits)

    def term(self, op: Operand):
        if isinstance(op, Const):
            return self.const(op.value, op.type)
        if op.id not in self.terms:
            ins = self.defs.get(op.id)
            if ins is None:
                raise _Unencodable(f"{op} is not an instruction result")
            handler = UNIFORM_TABLE.get(type(ins).OPCODE)
            if handler is None:
                raise _Unencodable(f"no entry for {type(ins).__name__}")
            self.terms[op.id] = handler(self, ins)
        return self.terms[op.id]


def _int_operands(u: _UniformTerms, ins, *ops):
    if any(o.type.is_float for o in ops):
        raise _Unencodable(f"float operand in {type(ins).__name__}")
    return [u.term(o) for o in ops]


def _u_binop(u: _UniformTerms, ins: BinOp):
    z3, t = u.z3, ins.result.type
    a, b = _int_operands(u, ins, ins.lhs, ins.rhs)
    if t.is_bool:
        table = {"and": z3.And, "or": z3.Or, "xor": z3.Xor}
        if ins.op not in table:
            raise _Unencodable(f"bool {ins.op}")
        return table[ins.op](a, b)
    signed = t.is_signed
    if ins.op in ("div", "floordiv", "mod"):
        u.side.append(b != 0)
    lt = (lambda x, y: x < y) if signed else z3.ULT
    ops = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
        "div": lambda: a / b if signed else z3.UDiv(a, b),
        "mod": lambda: z3.SRem(a, b) if signed else z3.URem(a, b),
        "floordiv": lambda: (z3.If(z3.And(z3.SRem(a, b) != 0, (a < 0) != (b < 0)), a / b - 1, a / b)
                             if signed else z3.UDiv(a, b)),
        "min": lambda: z3.If(lt(a, b), a, b), "max": lambda: z3.If(lt(a, b), b, a),
        "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
        "shl": lambda: a << (b & (t.bits - 1)),
        "shr": lambda: a >> (b & (t.bits - 1)) if signed else z3.LShR(a, b & (t.bits - 1)),
    }
    if ins.op not in ops:
        raise _Unencodable(ins.op)
    return ops[ins.op]()


def _u_compare(u: _UniformTerms, ins: Compare):
    z3 = u.z3
    a, b = _int_operands(u, ins, ins.lhs, ins.rhs)
    if ins.op == "eq":
        return a == b
    if ins.op == "ne":
        return a != b
    if ins.lhs.type.is_bool:
        a, b = z3.If(a, z3.BitVecVal(1, 2), z3.BitVecVal(0, 2)), z3.If(b, z3.BitVecVal(1, 2), z3.BitVecVal(0, 2))
    if ins.lhs.type.is_signed:
        return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[ins.op]
    return {"lt": z3.ULT, "le": z3.ULE, "gt": z3.UGT, "ge": z3.UGE}[ins.op](a, b)


def _u_cast(u: _UniformTerms, ins: Cast):
    z3, src, dst = u.z3, ins.operand.type, ins.result.type
    (v,) = _int_operands(u, ins, ins.operand)
    if dst.is_float:
        raise _Unencodable("cast to float")
    if src.is_bool:
        return v if dst.is_bool else z3.If(v, z3.BitVecVal(1, dst.bits), z3.BitVecVal(0, dst.bits))
    if dst.is_bool:
        return v != 0
    if dst.bits > src.bits:
        return (z3.SignExt if src.is_signed else z3.ZeroExt)(dst.bits - src.bits, v)
    return z3.Extract(dst.bits - 1, 0, v) if dst.bits < src.bits else v


def _u_unary(u: _UniformTerms, ins: UnaryOp):
    z3, t = u.z3, ins.result.type
    (v,) = _int_operands(u, ins, ins.operand)
    if ins.op == "not":
        return z3.Not(v)
    if ins.op == "neg":
        return -v
    if ins.op == "invert":
        return ~v
    if ins.op == "abs":
        return z3.If(v < 0, -v, v) if t.is_signed else v
    raise _Unencodable(ins.op)


def _u_select(u: _UniformTerms, ins: Select):
    c, a, b = _int_operands(u, ins, ins.cond, ins.if_true, ins.if_false)
    return u.z3.If(c, a, b)


def _u_special(u: _UniformTerms, ins: Special):
    if ins.kind == "launch_dim":
        return u.z3.BitVecVal(u.dims[ins.dim], 32)
    if ins.kind not in u.geometry:
        raise _Unencodable(f"{ins.kind} is not uniform")
    return u.z3.BitVecVal(u.geometry[ins.kind], 32)


def _u_not_uniform(u: _UniformTerms, ins):
    raise _Unencodable(f"{type(ins).__name__} is not a uniform value")


# OPCODE -> z3 term of a uniform value (raises _Unencodable when it is not one).
UNIFORM_TABLE: dict[str, Callable[[_UniformTerms, Any], Any]] = {
    BinOp.OPCODE: _u_binop, Compare.OPCODE: _u_compare, UnaryOp.OPCODE: _u_unary,
    Cast.OPCODE: _u_cast, Select.OPCODE: _u_select, Special.OPCODE: _u_special,
    ShapeOf.OPCODE: lambda u, ins: u.shape_term(ins.array.name, ins.dim),
    Load.OPCODE: _u_not_uniform, Store.OPCODE: _u_not_uniform, Atomic.OPCODE: _u_not_uniform,
    Barrier.OPCODE: _u_not_uniform, Assert.OPCODE: _u_not_uniform,
    Requires.OPCODE: _u_not_uniform, RequiresArray.OPCODE: _u_not_uniform,
    Phi.OPCODE: _u_not_uniform,
}


class _UniformEvaluator:
    """Concrete integer values of uniform operands for given shapes and scalars."""

    def __init__(self, kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                 shapes: Mapping[str, tuple[int, ...]], scalars: Mapping[str, Any]):
        import z3

        types = {p.name: p.value.type for p in kernel.scalar_params}

        def scalar(name):
            t = types[name]
            return z3.BoolVal(bool(scalars[name])) if t.is_bool else (
                None if t.is_float else z3.BitVecVal(t.wrap(int(scalars[name])), t.bits))

        self.shapes = shapes
        self.terms = _UniformTerms(kernel, dims, block_dim,
                                   lambda a, d: z3.BitVecVal(shapes[a][d], 32), scalar)

    def eval(self, op: Operand) -> int:
        z3 = self.terms.z3
        try:
            term = self.terms.term(op)
        except _Unencodable as exc:
            loc = getattr(self.terms.defs.get(getattr(op, "id", -1)), "loc", None)
            raise UnsupportedBoundError(
                f"{loc or '<kernel>'}: cannot evaluate this array-contract bound for input "
                f"generation ({exc}); contract bounds must be integer arithmetic on "
                "parameters, shapes and launch geometry") from None
        if any(z3.is_false(z3.simplify(c)) for c in self.terms.side):
            raise InputGenerationError("an array-contract bound divides by zero")
        value = z3.simplify(term)
        if z3.is_bool(value):
            return int(z3.is_true(value))
        return value.as_signed_long() if op.type.is_signed else value.as_long()
