"""Turning the kernel's error-status buffer into the simulator's exceptions.

Invariant: a status whose code word is 0 means no check failed; any other
code raises the KernelRuntimeError subclass of the same kind the simulator
raises (bounds, div-zero, assert, divergence), carrying the failing check's
source location when the lowering listed it, and the thread and block.
An unknown code raises a plain KernelRuntimeError, never passes silently.
"""
from __future__ import annotations

from verikern.errors import (
    BarrierDivergenceError, DivisionByZeroError, DivisionOverflowError, KernelAssertionError,
    KernelRuntimeError, OutOfBoundsError,
)

# Codes of verikern.backends.llvm.abi (ERR_*), restated so that a change there
# is caught by tests/backends/cuda/test_cuda_status.py rather than silently misread.
ERR_NONE, ERR_BOUNDS, ERR_DIV_ZERO, ERR_ASSERT, ERR_DIVERGENCE = 0, 1, 2, 3, 4
#: abi.DIVISION_OVERFLOW_NOTE, restated likewise: an ERR_DIV_ZERO site whose
#: detail it is checks INT_MIN / -1 (DivisionOverflowError)
DIVISION_OVERFLOW_NOTE = "overflow"

_KINDS = {
    ERR_BOUNDS: OutOfBoundsError,
    ERR_DIV_ZERO: DivisionByZeroError,
    ERR_ASSERT: KernelAssertionError,
    ERR_DIVERGENCE: BarrierDivergenceError,
}


def raise_for_status(words, sites, kernel_name: str, device: str) -> None:
    """Raise for a non-zero status (see the module invariant); `words` are
    the 8 int64 status words, `sites` the lowering's ErrorSite list."""
    code = int(words[0])
    if code == ERR_NONE:
        return
    site_index, thread, block = int(words[1]), int(words[2]), int(words[3])
    d0, d1, d2 = int(words[4]), int(words[5]), int(words[6])
    site = sites[site_index] if sites is not None and 0 <= site_index < len(sites) else None
    loc = site.loc if site is not None else None
    where = f"thread {thread} of block {block} on {device}"
    cls = _KINDS.get(code)
    if code == ERR_DIV_ZERO and site is not None and site.detail == DIVISION_OVERFLOW_NOTE:
        cls = DivisionOverflowError
    if cls is None:
        raise KernelRuntimeError(f"kernel {kernel_name} reported unknown error code {code} ({where})",
                                 loc, thread, block)
    if code == ERR_BOUNDS:
        array = site.array if site is not None and site.array else "an array"
        message = (f"out-of-bounds access to {array}: index {d1} in dimension {d0} "
                   f"(length {d2}) by {where}")
        raise cls(message, loc, thread, block, array=array, dim=d0, index=d1, length=d2)
    if code == ERR_DIVERGENCE:
        message = (f"barrier divergence in kernel {kernel_name}: {where} waits at a barrier "
                   f"while thread {d1} reached another (id {d0})")
        raise cls(message, loc, thread, block, other_barrier=d0, other_thread=d1)
    text = site.message if site is not None and site.message else {
        ERR_DIV_ZERO: "integer division or modulo by zero",
        ERR_ASSERT: "assertion failed",
    }[code]
    raise cls(f"{text} ({where})", loc, thread, block)
