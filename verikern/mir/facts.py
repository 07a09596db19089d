"""Predicates on MIR instructions, read from the op table (`verikern.mir.ops`).

Every layer that asks "can this instruction trap", "does it touch memory",
"may it go when unused", "is it well typed" or "which instruction defines
this value" calls these functions; none re-derives the answer from op names
or class names.

Invariants:
- `is_int_division(ins)` holds exactly for the BinOps of a trapping op on
  integer operands (div, floordiv, mod), whatever the divisor; `may_trap(ins)`
  for those that can fault: a divisor that is not a non-zero constant, or
  (`may_overflow`) an int32/int64 division whose divisor may be -1 and whose
  dividend may be INT_MIN.  These carry the `div-zero` obligation and can
  raise at run time.
- `removable_if_unused(ins)` holds only for pure instructions that cannot
  trap: passes never remove an access, barrier, assert or requires.
- `type_error(ins)` is None exactly when the op/type pair of a BinOp, Compare
  or UnaryOp is in the op table (operand agreement is checked by the verifier).
"""
from __future__ import annotations

from typing import TypeGuard, Union

from .nodes import (
    INSTRUCTION_CLASSES, Atomic, BinOp, Compare, Const, Instr, Kernel, Load, Phi, Store, UnaryOp,
    result_of,
)
from .ops import BINARY, COMPARE, INSTRUCTION_FACTS, UNARY, InstrFacts, division_can_overflow

assert set(INSTRUCTION_FACTS) == {c.OPCODE for c in INSTRUCTION_CLASSES}, \
    "verikern.mir.ops.INSTRUCTION_FACTS must have one entry per instruction class"


def instr_facts(ins) -> InstrFacts:
    """The table entry of an instruction; raises for anything else (never guesses)."""
    try:
        return INSTRUCTION_FACTS[ins.OPCODE]
    except (KeyError, AttributeError):
        raise TypeError(f"no op-table entry for {type(ins).__name__}") from None


def is_int_division(ins) -> TypeGuard[BinOp]:
    """An integer div/floordiv/mod (anything the table marks `traps`)."""
    return isinstance(ins, BinOp) and ins.op in BINARY and BINARY[ins.op].traps \
        and ins.result.type.is_int


def may_divide_by_zero(ins) -> TypeGuard[BinOp]:
    """An integer division whose divisor is not a non-zero constant."""
    return is_int_division(ins) and not (isinstance(ins.rhs, Const) and ins.rhs.value != 0)


def may_overflow(ins) -> TypeGuard[BinOp]:
    """An int32/int64 division that may be INT_MIN / -1: neither its divisor
    a constant other than -1 nor its dividend a constant other than INT_MIN."""
    if not is_int_division(ins) or not division_can_overflow(ins.result.type):
        return False
    t = ins.result.type
    return not (isinstance(ins.rhs, Const) and ins.rhs.value != -1) \
        and not (isinstance(ins.lhs, Const) and ins.lhs.value != t.min_value)


def may_trap(ins) -> TypeGuard[BinOp]:
    """An integer division that may fault: by zero, or INT_MIN / -1."""
    return may_divide_by_zero(ins) or may_overflow(ins)


#: The instructions the op table says access memory (INSTRUCTION_FACTS: load,
#: store, atomic); a new memory instruction is added here too, so that the
#: type guards below stay true.
MemoryAccess = Union[Load, Store, Atomic]


def reads_memory(ins) -> TypeGuard[Load | Atomic]:
    return instr_facts(ins).reads_memory


def writes_memory(ins) -> TypeGuard[Store | Atomic]:
    return instr_facts(ins).writes_memory


def accesses_memory(ins) -> TypeGuard[MemoryAccess]:
    """Load, Store or Atomic: reads or writes array elements."""
    f = instr_facts(ins)
    return f.reads_memory or f.writes_memory


def is_barrier(ins) -> bool:
    return instr_facts(ins).barrier


def removable_if_unused(ins) -> bool:
    """Pure and unable to trap: DCE may drop it when nothing reads its result."""
    return instr_facts(ins).pure and not may_trap(ins)


def type_error(ins) -> str | None:
    """Why a BinOp/Compare/UnaryOp's op is not defined on its operand type, or None."""
    if isinstance(ins, BinOp):
        table, what, t = BINARY, "binary op", ins.lhs.type
    elif isinstance(ins, Compare):
        table, what, t = COMPARE, "comparison", ins.lhs.type
    elif isinstance(ins, UnaryOp):
        table, what, t = UNARY, "unary op", ins.operand.type
    else:
        return None
    info = table.get(ins.op)
    if info is None:
        return f"unknown {what} {ins.op!r}"
    if not info.allows(t):
        allowed = ", ".join(sorted(info.types))
        return f"{what} {ins.op!r} is not defined on {t.name} (only on {allowed})"
    return None


def definitions(kernel: Kernel, phis: bool = True) -> dict[int, Instr | Phi]:
    """Value id -> the instruction (or, with `phis`, the Phi) that defines it.
    Scalar parameters have no entry."""
    out: dict[int, Instr | Phi] = {}
    for b in kernel.blocks:
        defining: tuple[Instr | Phi, ...] = (*b.phis, *b.instrs) if phis else b.instrs
        for ins in defining:
            r = getattr(ins, "result", None)
            if r is not None:
                out[r.id] = ins
    return out


def uses_float16(kernel: Kernel) -> bool:
    """Whether any array, scalar parameter or instruction result of `kernel`
    is float16 (a phi's value comes from one of these)."""
    if any(a.dtype.name == "float16" for a in kernel.arrays):
        return True
    if any(p.value.type.name == "float16" for p in kernel.scalar_params):
        return True
    return any((r := result_of(ins)) is not None and r.type.name == "float16"
               for _, ins in kernel.instructions())
