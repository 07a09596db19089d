"""MIR well-formedness checks, run between passes in tests.

`verify(kernel)` raises MirVerifyError naming the first broken invariant of
verikern.mir.nodes (single definition, dominance, phi arity, typing, terminator
targets, requires placement); op/type pairs are those of the op table
(verikern.mir.ops). It never changes the kernel.
"""
from __future__ import annotations

from .cfg import dominators
from .nodes import (
    ASSERT_KINDS, ATOMIC_OPS, SPECIAL_KINDS,
    Assert, Atomic, BinOp, Branch, Compare, Const, Kernel, Load,
    Requires, RequiresArray, Select, ShapeOf, Special, Store, UnaryOp, Value,
)
from .facts import accesses_memory, is_barrier, type_error
from .ops import ATOMIC
from .types import BOOL, I32
from .work import charge_walk


class MirVerifyError(Exception):
    """MIR broke an invariant; the message names kernel, block and instruction."""


def _fail(k: Kernel, where, msg: str):
    """Raise the error; `where` is its text, or the (block label, instruction)
    it is about (written out only when something fails)."""
    if isinstance(where, tuple):
        label, ins = where
        where = f"block {label}, {type(ins).__name__} at line {ins.loc.line}"
    raise MirVerifyError(f"MIR of kernel {k.name!r}, {where}: {msg}")


def _check_types(k: Kernel, where, ins) -> None:
    def same(*ops):
        first = ops[0].type
        if any(o.type != first for o in ops[1:]):
            types = {o.type for o in ops}
            _fail(k, where, f"operand types differ: {sorted(t.name for t in types)}")

    if isinstance(ins, (BinOp, Compare, UnaryOp)):
        # op/type pairs come from the op table (verikern.mir.ops)
        problem = type_error(ins)
        if problem is not None:
            _fail(k, where, problem)
        if isinstance(ins, Compare):
            same(ins.lhs, ins.rhs)
            if ins.result.type != BOOL:
                _fail(k, where, "comparison result must be bool")
        else:
            same(ins.result, *ins.operands())
    elif isinstance(ins, Select):
        if ins.cond.type != BOOL:
            _fail(k, where, "select condition must be bool")
        same(ins.result, ins.if_true, ins.if_false)
    elif isinstance(ins, (Special, ShapeOf)):
        if ins.result.type != I32:
            _fail(k, where, "geometry and shapes are int32")
        if isinstance(ins, Special) and ins.kind not in SPECIAL_KINDS:
            _fail(k, where, f"unknown special {ins.kind!r}")
        if isinstance(ins, ShapeOf) and (ins.array.space != "global" or
                                         not 0 <= ins.dim < ins.array.ndim):
            _fail(k, where, "shape of a non-global array or a bad dimension")
    elif isinstance(ins, (Load, Store, Atomic)):
        if len(ins.indices) != ins.array.full_ndim:
            _fail(k, where, f"{len(ins.indices)} indices for a "
                            f"{ins.array.full_ndim}-d array {ins.array.name}")
        for i in ins.indices:
            if not i.type.is_int:
                _fail(k, where, f"index {i} is not an integer")
        val = ins.result if isinstance(ins, (Load, Atomic)) else ins.value
        if val.type != ins.array.dtype:
            _fail(k, where, f"element type {ins.array.dtype} but value {val.type}")
        if isinstance(ins, Atomic):
            if ins.op not in ATOMIC_OPS:
                _fail(k, where, f"unknown atomic {ins.op!r}")
            if not ATOMIC[ins.op].allows(ins.array.dtype):
                _fail(k, where, f"atomic {ins.op} is not defined on {ins.array.dtype}")
            if ins.value.type != ins.array.dtype:
                _fail(k, where, "atomic value type differs from the element type")
            if (ins.op == "cas") != (ins.compare is not None):
                _fail(k, where, "cas needs a compare operand (and only cas)")
    elif isinstance(ins, (Assert, Requires)):
        if isinstance(ins, Assert) and ins.kind not in ASSERT_KINDS:
            _fail(k, where, f"unknown assert kind {ins.kind!r}")
        if ins.cond.type != BOOL:
            _fail(k, where, "condition must be bool")
    elif isinstance(ins, RequiresArray):
        if ins.kind not in ("all_in_range", "all_distinct", "all_sorted"):
            _fail(k, where, f"unknown array contract {ins.kind!r}")
        if ins.kind == "all_sorted" and (ins.array.ndim != 1 or ins.array.inner):
            _fail(k, where, "all_sorted needs a one-dimensional array")
        if not ins.array.dtype.is_int:
            _fail(k, where, "array contracts need an integer array")


def verify(k: Kernel) -> None:
    """Raise MirVerifyError unless `k` satisfies every MIR invariant."""
    charge_walk(k)      # the kernel's compile work (work.py)
    labels = [b.label for b in k.blocks]
    if len(set(labels)) != len(labels):
        _fail(k, "CFG", "duplicate block labels")
    known = set(labels)
    for b in k.blocks:
        for s in b.terminator.successors():
            if s not in known:
                _fail(k, f"block {b.label}", f"jump to unknown block {s}")
    preds = k.predecessors()
    if preds[k.entry.label]:
        _fail(k, "entry", "the entry block has predecessors")
    dom = dominators(k)
    reachable = {label for label, d in dom.items() if d.reachable}

    defined_in: dict[int, tuple[str, int]] = {}  # value id -> (block, position)
    for p in k.scalar_params:
        defined_in[p.value.id] = (k.entry.label, -1)
    for b in k.blocks:
        for pos, ins in enumerate((*b.phis, *b.instrs)):
            res = getattr(ins, "result", None)
            if res is not None:
                if res.id in defined_in:
                    _fail(k, f"block {b.label}", f"{res} defined twice")
                defined_in[res.id] = (b.label, pos)

    def check_use(v, b_label: str, pos: int, where):
        if isinstance(v, Const):
            return
        if not isinstance(v, Value):
            _fail(k, where, f"operand {v!r} is neither a Value nor a Const")
        if v.id not in defined_in:
            _fail(k, where, f"{v} is used but never defined")
        d_block, d_pos = defined_in[v.id]
        if b_label not in reachable:
            return
        if d_block == b_label:
            if d_pos >= pos:
                _fail(k, where, f"{v} used before its definition")
        elif d_block not in dom[b_label]:
            _fail(k, where, f"{v} does not dominate its use")

    seen_memory = False
    for b in k.blocks:
        where_b = f"block {b.label}"
        plist = preds[b.label]
        for phi in b.phis:
            srcs = [lbl for lbl, _ in phi.incoming]
            if sorted(srcs) != sorted(plist):
                _fail(k, where_b, f"phi {phi.result} has incoming {srcs}, "
                                  f"predecessors are {plist}")
            for lbl, v in phi.incoming:
                if isinstance(v, Value) or isinstance(v, Const):
                    if v.type != phi.result.type:
                        _fail(k, where_b, f"phi {phi.result} mixes types")
                # the incoming value must dominate the end of that predecessor
                check_use(v, lbl, 10**9, where_b)
        npos = len(b.phis)
        for i, ins in enumerate(b.instrs):
            where = (b.label, ins)
            for v in ins.operands():
                check_use(v, b.label, npos + i, where)
            _check_types(k, where, ins)
            if accesses_memory(ins) or is_barrier(ins):
                seen_memory = True
            if isinstance(ins, (Requires, RequiresArray)):
                if b is not k.entry or seen_memory:
                    _fail(k, where, "requires must be in the entry block "
                                    "before any memory access")
        t = b.terminator
        for v in t.operands():
            check_use(v, b.label, 10**9, f"{where_b} terminator")
        if isinstance(t, Branch) and t.cond.type != BOOL:
            _fail(k, where_b, "branch condition must be bool")
    for loop in k.loops:
        if loop.header not in known or loop.exit not in known:
            _fail(k, "loops", f"loop at line {loop.loc.line} names unknown blocks")
