"""Launches replay tries beyond the prover's own, for values the abstraction
leaves free: a narrow atomic counter that must wrap, float parameters.

A ticket counter of 8 or 16 bits (`slot = atomic_add(count, 0, 1)` on an
int8/uint8/int16/uint16 array) hands out a wrapped slot only after 2**bits
increments: the prover's counterexample for it is an abstraction-born launch
that is usually far too large to simulate (a billion threads), and a launch
shrunk to the offending threads does not wrap at all, because the slot a
thread gets depends on how many threads incremented before it.

`wrap_variants` gives replay the smallest launches that can show it: 1-D,
2**(bits-1) + 1 threads (a signed counter turns negative) or 2**bits + 1
(every value of the counter's type taken once, then one more), the arrays
clamped to that many elements per dimension (or the other 1-D arrays grown to
cover the launch), scalars clamped alike, with the prover's contents and each
content fill. They are only candidates: replay confirms a failure only when
the simulator, running one of them in full (every thread, every atomic), shows
the obligation's violation at its site -- so the witness is a real launch and
nothing is assumed about the threads that are not the offending ones.

`float_scalar_variants` does the same for float parameters: an index
computed from them (`int(i * scale - shift)`) is abstract in the prover, whose
model usually leaves them 0.0; the launch runs again with each of a few
values for all of them together.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator

from verikern.mir.nodes import ArrayRef, Atomic, Kernel
from verikern.mir.types import ScalarType
from verikern.proofs.confirming.replay_launch import clamped, with_shapes
from verikern.proofs.obligations import Counterexample

#: Widest counter element (bits) a wrap launch is built for: 2**16 + 1
#: threads simulate within the replay budget; 2**32 do not.
MAX_COUNTER_BITS = 16
#: Atomic operations that step a counter (its old value is the ticket).
COUNTING_OPS = frozenset({"add", "sub"})


def narrow_counters(kernel: Kernel) -> dict[str, ScalarType]:
    """The integer arrays of at most MAX_COUNTER_BITS bits that an atomic add
    or sub updates, with their element types."""
    return {ins.array.name: ins.array.dtype for block in kernel.blocks for ins in block.instrs
            if isinstance(ins, Atomic) and ins.op in COUNTING_OPS
            and ins.array.dtype.is_int and ins.array.dtype.bits <= MAX_COUNTER_BITS}


def wrap_sizes(kernel: Kernel) -> list[int]:
    """Thread counts, smallest first, at which some narrow counter wraps:
    2**(bits-1) + 1 (a signed counter turns negative) and 2**bits + 1 (any
    counter repeats a value)."""
    sizes = set()
    for t in narrow_counters(kernel).values():
        if t.is_signed:
            sizes.add((1 << (t.bits - 1)) + 1)
        sizes.add((1 << t.bits) + 1)
    return sorted(sizes)


def wrap_variants(kernel: Kernel, cex: Counterexample,
                  fills: list[dict]) -> Iterator[tuple[Counterexample, dict | None, str]]:
    """(counterexample, fill or None, how it differs from the prover's) for
    each launch on which the kernel's narrow counter can wrap (see the module
    docstring): for each `wrap_sizes` count of threads, the arrays clamped to
    it, then every 1-D array but the counters grown to it (the same monotone
    max for all, so `==` and `<=` between their shapes still hold), each
    with the prover's contents and each fill. Nothing for a kernel without
    a narrow counter or a multi-dimensional launch."""
    counters = narrow_counters(kernel)
    if not counters or len(cex.dims) != 1:
        return
    arrays = [p for p in kernel.params if isinstance(p, ArrayRef)]
    for threads in wrap_sizes(kernel):
        # the threads named: the first and the last (the one a wrap reaches)
        bd = int(cex.block_dim)
        last = ((threads - 1) // bd, (threads - 1) % bd)
        named = ((0, 0), last) if len(cex.threads) > 1 else (last,)
        wide = dataclasses.replace(cex, dims=(threads,), threads=named)
        small = clamped(kernel, wide, threads) or wide
        how = (f"on a launch of {threads} threads, enough for the atomic counter "
               f"({', '.join(sorted(counters))}) to wrap")
        variants = [small]
        if all(len(small.shapes.get(p.name, ())) == p.ndim for p in arrays):
            grown = {p.name: tuple(max(int(s), threads) if p.ndim == 1 and p.name not in counters
                                   else int(s) for s in small.shapes[p.name]) for p in arrays}
            if grown != {k: tuple(v) for k, v in small.shapes.items()}:
                variants.append(with_shapes(kernel, small, grown))
        for variant in variants:
            yield variant, None, how
            for fill in fills:
                yield variant, fill, how


#: Values every float scalar parameter takes together in `float_scalar_variants`:
#: fractions of both signs (a truncation toward zero, an index one below 0),
#: large magnitudes, and NaN (whose conversion to int is the type's minimum).
FLOAT_SCALAR_FILLS = (1.5, -1.5, 0.75, -0.75, 1.0e9, -1.0e9, float("nan"))


def float_scalar_variants(kernel: Kernel, cex: Counterexample
                          ) -> Iterator[tuple[Counterexample, dict | None, str]]:
    """The counterexample with every float scalar parameter set to each of
    FLOAT_SCALAR_FILLS (an abstraction leaves float values free, and its model
    often has them 0.0, where an index computed from them is harmless), with
    the prover's contents. Only candidates, as above: the simulator decides."""
    floats = [p.name for p in kernel.scalar_params if p.value.type.is_float]
    if not floats:
        return
    for value in FLOAT_SCALAR_FILLS:
        scalars = {**cex.scalars, **{name: value for name in floats}}
        shown = "nan" if value != value else f"{value:g}"
        yield (dataclasses.replace(cex, scalars=scalars), None,
               f"with the float parameters {', '.join(floats)} = {shown}")
