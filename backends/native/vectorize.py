"""When the CPU thread loop is handed to LLVM's loop vectoriser.

`contiguous_across_threads(kernel)`: the kernel has no barriers, no shared
memory and no atomics, and every global access's logical index is uniform
in the block or the thread's linear id plus a uniform offset (unit stride
across the threads of the thread loop; vector element indices are
constants). Then vectorising the thread loop turns each access into a
contiguous (or interleaved) vector access; a data-dependent index would
become a hardware gather (vpgatherdd), which is slower than the scalar loop
on AMD Zen 4: on the neighbour gather of benchmarks/native_vs_warp.py, one
core, the unchecked loop forced to vectorise ran at 0.9x the scalar loop on
L2/L3-resident data and 0.5x at n = 4M (2026-12-05), so such kernels stay
scalar.

`vectorize_thread_loops(kernel, features)`: the above, and the host has
AVX-512. A kernel whose `if i < n` guard backends/llvm/guard.py folds into
the thread loop's bound has no masked access left; any other guarded access
becomes a masked load or store, native with AVX-512 but microcoded on AMD
Zen 2/3 with AVX2, where it measured 5x slower than the scalar loop.
Measured on AMD Zen 4, one thread, n = 4M: saxpy 1.45x, ray-triangle about
3.5x (with jit.optimise's InstCombine setting) faster than the scalar
thread loop.

Invariant: this only chooses an optimisation; the generated code computes
the same values either way (no fast-math reassociation is enabled by it,
and a loop with a run-time check left in it is not vectorised by LLVM).
"""
from __future__ import annotations

from verikern.mir.nodes import (
    Atomic, BinOp, Cast, Const, Kernel, Load, ScalarParam, ShapeOf, Special, Store, Value,
)
from verikern.backends.llvm.body import linear_id_values

_UNIFORM_SPECIALS = ("block_idx", "block_dim", "grid_dim", "launch_dim")


def _classes(kernel: Kernel) -> tuple[set[int], set[int]]:
    """(uniform value ids, unit-stride value ids) within one block's thread loop."""
    uniform = {p.value.id for p in kernel.params if isinstance(p, ScalarParam)}
    _, linear = linear_id_values(kernel)
    stride = set(linear)

    def kind(op) -> str:
        if isinstance(op, Const) or (isinstance(op, Value) and op.id in uniform):
            return "uniform"
        if isinstance(op, Value) and op.id in stride:
            return "stride"
        return "other"

    changed = True
    while changed:
        changed = False
        for _, ins in kernel.instructions():
            r = getattr(ins, "result", None)
            if r is None or r.id in uniform or r.id in stride:
                continue
            new = None
            if isinstance(ins, ShapeOf) or (isinstance(ins, Special) and ins.kind in _UNIFORM_SPECIALS):
                new = "uniform"
            elif isinstance(ins, (BinOp, Cast)) and r.type.is_int:
                kinds = [kind(o) for o in ins.operands()]
                if all(k == "uniform" for k in kinds):
                    new = "uniform"
                elif isinstance(ins, Cast) and kinds == ["stride"]:
                    new = "stride"
                elif isinstance(ins, BinOp) and ins.op in ("add", "sub") and \
                        sorted(kinds) == ["stride", "uniform"] and \
                        (ins.op == "add" or kinds[0] == "stride"):
                    new = "stride"
            if new == "uniform":
                uniform.add(r.id)
                changed = True
            elif new == "stride":
                stride.add(r.id)
                changed = True
    return uniform, stride


def contiguous_across_threads(kernel: Kernel) -> bool:
    """See the module doc."""
    if kernel.uses_block_features or kernel.shared:
        return False
    uniform, stride = _classes(kernel)
    seen = False
    for _, ins in kernel.instructions():
        if isinstance(ins, Atomic):
            return False
        if isinstance(ins, (Load, Store)):
            seen = True
            for op in ins.indices[:ins.array.ndim]:
                if not (isinstance(op, Const) or op.id in uniform or op.id in stride):
                    return False
    return seen


def vectorize_thread_loops(kernel: Kernel, features: dict) -> bool:
    """See the module doc; `features`: the host CPU's LLVM feature flags."""
    return bool(features.get("avx512f", False)) and contiguous_across_threads(kernel)
