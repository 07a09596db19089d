"""The errors a trapping MIR instruction raises on the host, worded once for
every evaluator (the simulator's lanes, the launch check's one thread).

Invariant: each function only builds the error (the caller raises it) from
the instruction, the kernel's name and the failing thread's ids; the
wording is the simulator's, which tests and reports quote.
"""
from __future__ import annotations

from verikern.errors import (
    DivisionByZeroError, DivisionOverflowError, IntegerDivisionError, KernelAssertionError,
    UnassignedReadError,
)
from verikern.mir.nodes import Assert, BinOp
from verikern.mir.ops import BINARY, division_can_overflow


def faulting_divisions(ins: BinOp, dividend, divisor):
    """Where the integer division `ins` faults on its operands (numpy scalars
    or arrays of one entry per lane): a zero divisor, or INT_MIN / -1 on
    int32/int64 (`verikern.mir.ops.division_can_overflow`)."""
    bad = divisor == 0
    t = ins.result.type
    if division_can_overflow(t):
        bad = bad | ((dividend == t.min_value) & (divisor == -1))
    return bad


def division_fault(ins: BinOp, kernel_name: str, thread: int, block: int, gtid: int,
                   dividend, divisor) -> IntegerDivisionError:
    """An integer div/mod/floordiv that faults in this thread: by zero
    (DivisionByZeroError), else INT_MIN / -1 (DivisionOverflowError)."""
    who = f"(thread {thread} of block {block}, global thread {gtid}, dividend {dividend})"
    if divisor == 0:
        return DivisionByZeroError(f"integer {ins.op} by zero in kernel {kernel_name} {who}",
                                   loc=ins.loc, thread=thread, block=block, global_thread=gtid)
    t = ins.result.type
    return DivisionOverflowError(
        f"integer {ins.op} overflow in kernel {kernel_name}: {dividend} {BINARY[ins.op].symbol} "
        f"{divisor} does not fit {t.name} {who}",
        loc=ins.loc, thread=thread, block=block, global_thread=gtid)


def assertion_failed(ins: Assert, kernel_name: str, thread: int, block: int,
                     gtid: int) -> KernelAssertionError:
    """An assert (or loop invariant) false in this thread; for an
    `unassigned` check, the read of a variable this path never assigned."""
    who = f"(thread {thread} of block {block}, global thread {gtid}, kernel {kernel_name})"
    if ins.kind == "unassigned":
        return UnassignedReadError(f"{ins.message} {who}", loc=ins.loc, thread=thread,
                                   block=block, global_thread=gtid, assert_message=ins.message)
    what = "loop invariant" if ins.kind == "invariant" else "assertion"
    msg = ins.message or what
    return KernelAssertionError(
        f"{what} failed: {msg} (thread {thread} of block {block}, global "
        f"thread {gtid}, kernel {kernel_name})",
        loc=ins.loc, thread=thread, block=block, global_thread=gtid,
        assert_message=ins.message)


__all__ = ["assertion_failed", "division_fault", "faulting_divisions"]
