"""Contract template for sorted segment ids written by each segment's first
element: `s = batch_idx[i]` and `if i == 0 or batch_idx[i - 1] != s:
energy[s] = ...` (nvalchemi's `is_first_atom_of_system`, FIRE's per-system
updates). Callers build such id arrays sorted (one run per system), so two
threads write one element only if the ids between them are equal, and the
guard lets only the first of the run through: `vk.all_sorted(batch_idx)` is
what the kernel relies on. `vk.all_distinct(batch_idx)` also removes the race,
but no caller with several atoms per system satisfies it.

Invariant: this only names a candidate (proofs.deciding.contract_templates
ranks it, proofs.deciding.suggest decides the kernel under it); a kernel
whose guard does not single out one element per run still fails under it.
"""
from __future__ import annotations

from verikern.mir.nodes import Cast, Load, Value


def segment_head_arrays(walker, access, block: str) -> set[str]:
    """The int32 1-d arrays `idx` (never written) such that one of `access`'s
    indices is an element of `idx` (`energy[batch_idx[i]]`, through casts) and
    a branch condition on every path to `block` reads `idx` at another load
    (`batch_idx[i - 1] != s`): a segment's first (or last) element picked by
    comparing neighbouring ids."""
    own = {}
    for index in access.indices[:access.array.ndim]:
        name = walker.loaded_index_array(index)
        if name is not None and name not in walker.written:
            own[name] = _load_site(walker, index)
    if not own:
        return set()
    guards = walker.deps([], block)          # only the guards' reads (no operands of its own)
    out = set()
    for site in guards.loads:
        ins = walker.kernel.block(site[0]).instrs[site[1]]
        if isinstance(ins, Load) and ins.array.name in own and site != own[ins.array.name]:
            out.add(ins.array.name)
    return out


def _load_site(walker, op, depth: int = 0):
    """The site of the load `op` is (through casts), else None."""
    ins = walker.defs.get(op.id) if isinstance(op, Value) and depth < 4 else None
    if isinstance(ins, Load):
        return walker.sites[id(ins)]
    return _load_site(walker, ins.operand, depth + 1) if isinstance(ins, Cast) else None
