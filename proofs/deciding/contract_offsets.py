"""Contract templates for offsets read from an index array (proofs.deciding.contract_templates
calls them with its walker `w`): a per-world start `x[start[w] + k]` and a record after one
header per thread `packed[offsets[i] + i + 1 + k]` get room for the launch
(`vk.all_in_range(start, 0, x.shape[0] - vk.launch_dim(c) + 1)`), a segment's end for a
listed id `x[idx[i] + 1]` gets the ids one below the offsets' length. With the walker
helpers contract_templates' guard reading uses: a CSR segment's length
`off[s + 1] - off[s]` (`segment_length_array`) and a guard that recomputes the index
(`same_as_core`) bound an index by the offsets as an end `off[s + 1]` does.

Invariant: a candidate decides nothing (proofs/deciding/suggest.py proves the kernel
under the conjunction it picks); each is generated only for an int32 1-d index array the
kernel does not write.
"""
from __future__ import annotations

from dataclasses import replace

from verikern.mir.nodes import BinOp, Cast, Const, Value
from verikern.proofs.deciding.contract_atoms import Atom, Term


def offset_atoms(w, s: Term, index) -> list[Atom]:
    """A per-world offset `x[start[w] + k]`, k a thread index component (of launch
    dimension c): every start leaves room for the launch's k,
    `vk.all_in_range(start, 0, x.shape[0] - vk.launch_dim(c) + 1)`. The same
    candidate for a sum with more terms beside the element and the component
    (`packed[offsets[i] + i + 1 + k]`, a record of `offsets[i + 1] - offsets[i]`
    ids after one count header per record before it, k below that length): the
    elements then leave room for the launch's headers (warp-simdata's
    `_scatter_connectivity_kernel`, `packed.shape[0] - num_cells` ids)."""
    terms = sum_terms(w, index)
    if len(terms) < 2:
        return []
    for base in terms:
        start = w.loaded_index_array(base)
        if start is None or start in w.written:
            continue
        for step in terms:
            c = w.component(step)
            if step is not base and c is not None and w.offset(step) == 0 \
                    and w.defs.get(getattr(step, "id", -1)) is not None:
                room = replace(s, minus=Term("launch", index=c), offset=1)
                return [Atom("all_in_range", rhs=room, array=start, family=-1)]
    return []


def next_offset_atoms(w, s: Term, index, step: int) -> list[Atom]:
    """An element plus a constant, `x[idx[i] + o]` (`source_offsets[face_idx + 1]`
    with `face_idx = face_locations[slot]`: a CSR segment's end for an id read from an
    index array): every element leaves room for the constant,
    `vk.all_in_range(idx, 0, x.shape[0] - o)` -- the ids number one fewer than the
    offsets. Only for an int32 1-d array the kernel does not write and 0 < o < 64."""
    ins = w.defs.get(index.id) if isinstance(index, Value) else None
    if not (0 < step < 64 and isinstance(ins, BinOp) and ins.op == "add"):
        return []
    base = ins.rhs if isinstance(ins.lhs, Const) else ins.lhs
    idx = w.loaded_index_array(base)
    if idx is None or idx in w.written or idx == s.name:
        return []
    return [Atom("all_in_range", rhs=replace(s, offset=-step), array=idx, family=-1)]


def sum_terms(w, op, depth: int = 0) -> list:
    """The non-constant terms of a sum `a + b + c` (through casts and `add`s;
    a constant term is left out, any other operation is one term): [op]
    itself when it is no sum."""
    ins = w.defs.get(op.id) if isinstance(op, Value) and depth < 8 else None
    if isinstance(ins, Cast) and ins.operand.type.is_int:
        return sum_terms(w, ins.operand, depth + 1)
    if isinstance(ins, BinOp) and ins.op == "add":
        return [t for x in (ins.lhs, ins.rhs) if not isinstance(x, Const)
                for t in sum_terms(w, x, depth + 1)]
    return [op]


def segment_length_array(w, op, depth: int = 0) -> str | None:
    """The int32 1-d array `off` when `op` is the difference of two of its
    elements (`off[s + 1] - off[s]`, through casts): a CSR segment's length,
    which a loop counter `k` stays below while `off[s] + k` indexes the
    segment -- so `off[s] + k < off[s + 1]`, and the elements bound the
    index as an end does (`k < off[s + 1]`). Else None."""
    ins = w.defs.get(op.id) if isinstance(op, Value) and depth < 4 else None
    if isinstance(ins, Cast):
        return segment_length_array(w, ins.operand, depth + 1)
    if isinstance(ins, BinOp) and ins.op == "sub":
        end, start = w.loaded_index_array(ins.lhs), w.loaded_index_array(ins.rhs)
        if end is not None and end == start:
            return end
    return None


def same_as_core(w, op: Value, core) -> bool:
    """`op` is a `core` value, or the same sum or difference of the same
    operands as one (`if start + count < end: out[start + count] = ...`
    computes `start + count` twice)."""
    if op.id in core:
        return True
    ins = w.defs.get(op.id)
    if not (isinstance(ins, BinOp) and ins.op in ("add", "sub")):
        return False
    shape = (ins.op, _operand_key(ins.lhs), _operand_key(ins.rhs))
    for vid in core:
        other = w.defs.get(vid)
        if isinstance(other, BinOp) and (other.op, _operand_key(other.lhs), _operand_key(other.rhs)) == shape:
            return True
    return False


def _operand_key(op) -> tuple:
    """An operand's identity for comparing two computations: a value's id, a constant's value."""
    return ("v", op.id) if isinstance(op, Value) else ("c", getattr(op, "value", None), str(op.type))
