"""No contents contract on the offsets of a stream compaction: `if mask[i] != 0:
indices[scan[i]] = i` (warp-simdata's `_compact_kernel`, `_compact_indices_kernel`).
Callers fill `scan` with the exclusive scan of the mask (`array_scan(mask, scan,
inclusive=False, add_trailing_sum=True)`): it repeats wherever the mask is 0, and every
element after the last one selected equals the count, `indices.shape[0]`. So
`vk.all_distinct(scan)` and `vk.all_in_range(scan, 0, indices.shape[0])`, which do
prove the kernel, are false on the project's own data, and `vk.check_launch` refuses its
launch (session 23's finding): the rate counted two kernels proved under contracts that
their project breaks. What the kernel really relies on (scan strictly increasing where
the mask is set, below the count) has no contract verikern can state, so the kernel
stays failed (its suggestion is not proved) rather than proved under a false contract.

Invariant: this only removes candidates (it never adds one), so no kernel is claimed
proved that was not before; a scatter through an index array whose guard reads no
other integer array at the same index (`out[perm[i]] = v`, `if i < n: out[perm[i]]`,
`if x[i] == maxes[s]: arg[s]` with a float `x`) keeps them.
"""
from __future__ import annotations

from verikern.mir.nodes import Cast, Load, Value


def compaction_scans(walker, access, block: str) -> set[str]:
    """The never-written arrays `scan` such that one of `access`'s indices is an
    element `scan[e]` (through casts) and a branch condition on every path to `block`
    reads another never-written array of integer or bool elements (a mask) at the same
    index `e` (`mask[e] != 0`)."""
    own: dict[str, tuple] = {}
    for index in access.indices[:access.array.ndim]:
        name = walker.loaded_index_array(index)
        load = _load_of(walker, index)
        if name is not None and name not in walker.written and load is not None:
            own[name] = tuple(load.indices)
    if not own:
        return set()
    guards = walker.deps([], block)          # only the guards' reads (no operands of its own)
    out = set()
    for site in guards.loads:
        ins = walker.kernel.block(site[0]).instrs[site[1]]
        if not isinstance(ins, Load) or ins.array.name in own or ins.array.name in walker.written \
                or ins.array.dtype.is_float or ins.array.inner:
            continue        # a float guard (`x[i] == maxes[s]`, a segment's argmax) is no mask
        out |= {name for name, at in own.items() if tuple(ins.indices) == at}
    return out


def keeps(atom, scans: set[str]) -> bool:
    """Whether `atom` (and each of its companions) is no contents contract on one of `scans`."""
    return not any(a.op in ("all_distinct", "all_in_range") and a.array in scans
                   for a in (atom, *atom.companions))


def _load_of(walker, op, depth: int = 0):
    """The Load `op` is the result of (through casts), else None."""
    ins = walker.defs.get(op.id) if isinstance(op, Value) and depth < 4 else None
    if isinstance(ins, Load):
        return ins
    return _load_of(walker, ins.operand, depth + 1) if isinstance(ins, Cast) else None
