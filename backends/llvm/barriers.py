"""Barrier analysis for targets that run a block's threads as loops.

Invariant: `live_across_barriers(k)[i]` is exactly the set of SSA values
(scalar parameters excluded: they are function arguments, valid everywhere)
that may be used on some path starting right after barrier i without being
redefined first, i.e. what a thread must keep while it waits at barrier i.
Phi operands count as uses at the end of the predecessor they come from.
"""
from __future__ import annotations

from verikern.mir.cfg import reverse_postorder
from verikern.mir.nodes import Barrier, Kernel, Value, result_of


def find_barriers(kernel: Kernel) -> list[tuple[str, int, Barrier]]:
    """Every Barrier as (block label, instruction index, instr), in block
    order; the position in this list is the barrier's id."""
    out = []
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if isinstance(ins, Barrier):
                out.append((b.label, i, ins))
    return out


def _values(ops, params: set[int]) -> set[int]:
    return {o.id for o in ops if isinstance(o, Value) and o.id not in params}


def live_across_barriers(kernel: Kernel) -> list[list[Value]]:
    """For each barrier (ids of `find_barriers`), the values live right after
    it, sorted by id."""
    params = {p.value.id for p in kernel.scalar_params}
    by_id: dict[int, Value] = {}
    use: dict[str, set[int]] = {}
    defs: dict[str, set[int]] = {}
    phi_uses: dict[tuple[str, str], set[int]] = {}   # (pred, succ) -> ids
    for b in kernel.blocks:
        d: set[int] = set()
        u: set[int] = set()
        for phi in b.phis:
            d.add(phi.result.id)
            by_id[phi.result.id] = phi.result
            for pred, op in phi.incoming:
                phi_uses.setdefault((pred, b.label), set()).update(_values([op], params))
        for ins in list(b.instrs) + [b.terminator]:
            u |= _values(ins.operands(), params) - d
            r = result_of(ins)
            if r is not None:
                d.add(r.id)
                by_id[r.id] = r
        use[b.label], defs[b.label] = u, d
    order = list(reversed(reverse_postorder(kernel)))
    live_in: dict[str, set[int]] = {label: set() for label in use}
    live_out: dict[str, set[int]] = {label: set() for label in use}
    changed = True
    while changed:
        changed = False
        for label in order:
            out: set[int] = set()
            for s in kernel.block(label).terminator.successors():
                out |= live_in[s] | phi_uses.get((label, s), set())
            new_in = use[label] | (out - defs[label])
            if out != live_out[label] or new_in != live_in[label]:
                live_out[label], live_in[label] = out, new_in
                changed = True
    result = []
    for label, idx, _ in find_barriers(kernel):
        blk = kernel.block(label)
        live = set(live_out[label]) | _values(blk.terminator.operands(), params)
        for ins in reversed(blk.instrs[idx + 1:]):
            r = result_of(ins)
            if r is not None:
                live.discard(r.id)
            live |= _values(ins.operands(), params)
        result.append([by_id[i] for i in sorted(live)])
    return result
