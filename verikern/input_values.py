"""Concrete values of a kernel's uniform operands (parameters, shapes, launch
geometry and integer arithmetic on them) for input generation.

Invariant: `_UniformEvaluator.eval` returns the value the operand takes in
every thread of a launch with the given dims, block size, shapes and scalars
(exact machine arithmetic: the SMT encoder's terms of the op table's
semantics, evaluated by z3's simplifier), or raises
`UnsupportedBoundError` for an operand that is not uniform, and
`InputGenerationError` when evaluating it would divide by zero (or INT_MIN
by -1 on int32/int64).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from verikern.errors import VerikernError
from verikern.mir.nodes import (
    Assert, Atomic, Barrier, BinOp, Cast, Compare, Const, Kernel, Load, Operand,
    Phi, Requires, RequiresArray, Select, ShapeOf, Special, Store, UnaryOp,
)
from verikern.mir.facts import definitions, is_int_division
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
    (constants or solver variables); `side` collects the facts that no
    division faults (a nonzero divisor, no INT_MIN / -1 on int32/int64)."""

    def __init__(self, kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                 shape_term: Callable[[str, int], Any], scalar_term: Callable[[str], Any]):
        import z3  # lazy: z3, only to solve for inputs

        from verikern.encoders.smt import semantics  # lazy: z3 (encoders.smt), only to solve for inputs

        self.z3 = z3
        self.sem = semantics
        size = math.prod(dims)
        self.geometry = {"block_dim": block_dim, "grid_dim": -(-size // block_dim)}
        self.dims = dims
        self.shape_term = shape_term
        self.side: list = []
        self.terms: dict[int, Any] = {p.value.id: scalar_term(p.name) for p in kernel.scalar_params}
        self.defs = definitions(kernel, phis=False)

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
            handler = UNIFORM_TABLE.get(ins.OPCODE)
            if handler is None:
                raise _Unencodable(f"no entry for {type(ins).__name__}")
            self.terms[op.id] = handler(self, ins)
        return self.terms[op.id]


def _int_operands(u: _UniformTerms, ins, *ops):
    if any(o.type.is_float for o in ops):
        raise _Unencodable(f"float operand in {type(ins).__name__}")
    return [u.term(o) for o in ops]


def _exact(u: _UniformTerms, fn, *args):
    """A term from the SMT encoder's exact semantics (the op table's reference
    semantics in z3); an op/type pair it does not define is not encodable."""
    try:
        return fn(*args)
    except u.sem.UnsupportedConstruct as e:
        raise _Unencodable(str(e)) from None


def _u_binop(u: _UniformTerms, ins: BinOp):
    a, b = _int_operands(u, ins, ins.lhs, ins.rhs)
    if is_int_division(ins):
        u.side.append(u.sem.division_defined(a, b, ins.result.type))
    return _exact(u, u.sem.int_binop, ins.op, a, b, ins.result.type)


def _u_compare(u: _UniformTerms, ins: Compare):
    a, b = _int_operands(u, ins, ins.lhs, ins.rhs)
    return _exact(u, u.sem.int_compare, ins.op, a, b, ins.lhs.type)


def _u_cast(u: _UniformTerms, ins: Cast):
    src, dst = ins.operand.type, ins.result.type
    (v,) = _int_operands(u, ins, ins.operand)
    if dst.is_float:
        raise _Unencodable("cast to float")
    return u.sem.int_cast(v, src, dst)


def _u_unary(u: _UniformTerms, ins: UnaryOp):
    (v,) = _int_operands(u, ins, ins.operand)
    return _exact(u, u.sem.int_unop, ins.op, v, ins.result.type)


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
        import z3  # lazy: z3, only to solve for inputs

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
            raise InputGenerationError("an array-contract bound divides by zero (or INT_MIN by -1)")
        value = z3.simplify(term)
        if z3.is_bool(value):
            return int(z3.is_true(value))
        return value.as_signed_long() if op.type.is_signed else value.as_long()
