"""Contract template for a packed layout: a thread's row plus a fixed number
of extra rows per group before it, `x[i + c * s]` with `i` a thread index
and `s = idx[i]` the thread's group (nvalchemi's L-BFGS packs each system's
atoms followed by 2 cell rows: `ext_positions[atom_i + 2 * batch_idx[atom_i]]`,
`num_packed = num_atoms + 2 * num_systems`).

The groups are what the kernel indexes with the same element elsewhere
(`phi[s]`: one entry per system), so the candidate is
`vk.int64(c) * vk.int64(phi.shape[0]) <= vk.int64(x.shape[0] - vk.launch_dim())`
-- room for the launch's rows and c rows per group -- picked with
`vk.all_in_range(idx, 0, phi.shape[0])` (`Atom.companions`: the room alone
says nothing of a group past the last). Stated in int64: `c * phi.shape[0]`
in int32 wraps for a large group array and then holds for any `x`; the
difference `x.shape[0] - vk.launch_dim()` of two values in [0, 2**31)
cannot wrap.

Invariant: a candidate decides nothing (proofs/deciding/suggest.py proves
the kernel under the conjunction it picks); it is generated only for an
index of exactly this shape, with `idx` an int32 1-d array the kernel does
not write.
"""
from __future__ import annotations

from dataclasses import replace

from verikern.mir.nodes import BinOp, Cast, Const, Kernel, Value
from verikern.mir import facts
from verikern.proofs.deciding.contract_atoms import Atom, Term

#: Extra rows per group a candidate names (literal multipliers of the element).
ROWS_PER_GROUP = range(1, 65)


def _scaled_element(w, op, depth: int = 0) -> tuple[int, Value] | None:
    """(c, e) for `c * e` (or `e * c`, or `e` itself with c = 1), `e` an element
    of an int32 1-d array the kernel does not write, through casts; else None."""
    ins = w.defs.get(op.id) if isinstance(op, Value) and depth < 4 else None
    if isinstance(ins, Cast):
        return _scaled_element(w, ins.operand, depth + 1)
    if isinstance(ins, BinOp) and ins.op == "mul":
        for k, e in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
            if isinstance(k, Const) and k.type.is_int and not k.type.is_bool and k.value in ROWS_PER_GROUP:
                arr = w.loaded_index_array(e)
                if arr is not None and arr not in w.written and isinstance(e, Value):
                    return int(k.value), e
        return None
    arr = w.loaded_index_array(op)
    if arr is not None and arr not in w.written and isinstance(op, Value):
        return 1, op
    return None


def _group_lengths(kernel: Kernel, element: Value) -> list[tuple[str, int]]:
    """(array, dim) of each global array the kernel indexes with `element`
    itself in dimension dim (`phi[s]`), in kernel order."""
    out: list[tuple[str, int]] = []
    for _, ins in kernel.instructions():
        if facts.accesses_memory(ins) and ins.array.space == "global":
            for dim, ix in enumerate(ins.indices[:ins.array.ndim]):
                if isinstance(ix, Value) and ix.id == element.id and (ins.array.name, dim) not in out:
                    out.append((ins.array.name, dim))
    return out


def packed_row_atoms(kernel: Kernel, w, s: Term, index) -> list[Atom]:
    """Candidates for an index `i + c * idx[i]` into length `s` (`w`: the
    contract_templates walker): room for the launch's rows and c rows per
    group, with the group array's range as companion; [] for other indices."""
    ins = w.defs.get(index.id) if isinstance(index, Value) else None
    if not isinstance(ins, BinOp) or ins.op != "add":
        return []
    out: list[Atom] = []
    for thread, rest in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
        c = w.component(thread)
        if c is None or w.offset(thread) != 0 or w.defs.get(getattr(thread, "id", -1)) is None:
            continue
        scaled = _scaled_element(w, rest)
        if scaled is None:
            continue
        rows, element = scaled
        idx = w.loaded_index_array(element)
        room = replace(s, minus=Term("launch", index=c), wide=True)
        for name, dim in _group_lengths(kernel, element):
            if name == s.name:
                continue
            groups = Term("shape", name, dim)
            in_range = Atom("all_in_range", rhs=groups, array=idx, family=-1)
            fits = Atom("le", Term("product", factors=(Term("const", index=rows), groups)), room, family=-1)
            out.append(replace(fits, companions=(in_range,)))
    return out
