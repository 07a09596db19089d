"""The errors a trapping MIR instruction raises on the host, worded once for
every evaluator (the simulator's lanes, the launch check's one thread).

Invariant: each function only builds the error (the caller raises it) from
the instruction, the kernel's name and the failing thread's ids; the
wording is the simulator's, which tests and reports quote.
"""
from __future__ import annotations

from verikern.errors import DivisionByZeroError, KernelAssertionError
from verikern.mir.nodes import Assert, BinOp


def division_by_zero(ins: BinOp, kernel_name: str, thread: int, block: int, gtid: int,
                     dividend) -> DivisionByZeroError:
    """An integer div/mod/floordiv whose divisor is 0 in this thread."""
    return DivisionByZeroError(
        f"integer {ins.op} by zero in kernel {kernel_name} "
        f"(thread {thread} of block {block}, global thread {gtid}, "
        f"dividend {dividend})",
        loc=ins.loc, thread=thread, block=block, global_thread=gtid)


def assertion_failed(ins: Assert, kernel_name: str, thread: int, block: int,
                     gtid: int) -> KernelAssertionError:
    """An assert (or loop invariant) false in this thread."""
    what = "loop invariant" if ins.kind == "invariant" else "assertion"
    msg = ins.message or what
    return KernelAssertionError(
        f"{what} failed: {msg} (thread {thread} of block {block}, global "
        f"thread {gtid}, kernel {kernel_name})",
        loc=ins.loc, thread=thread, block=block, global_thread=gtid,
        assert_message=ins.message)


__all__ = ["assertion_failed", "division_by_zero"]
