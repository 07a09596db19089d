"""Block-uniformity of MIR values: which values are equal for every thread of a
block that computes them at the same dynamic point.

Invariant: a value reported uniform depends only on scalar parameters, array
shapes, block_idx, block_dim, grid_dim, launch dims and constants, through pure
operations, and (for phis) through branches whose conditions are themselves
uniform. Loads, atomics and thread_idx are never uniform. The analysis is a
monotone dataflow fixpoint (values only ever move from uniform to varying).

Both analyses count their steps (blocks of join regions walked, instructions
and phis visited per round of the fixpoint, dominator-tree blocks) and note
them to the kernel's work budget (budget.note_analysis): on an inlined kernel
of 41,378 blocks they took seconds per proof context, in no budget before.
"""
from __future__ import annotations

from verikern.mir.cfg import DominatorSet, dominators, postdominators
from verikern.proofs.deciding.budget import note_analysis
from verikern.mir.nodes import (
    Assert, Atomic, Barrier, BinOp, Branch, Cast, Compare, Kernel, Load, Phi,
    Requires, RequiresArray, Select, ShapeOf, Special, Store, UnaryOp, Value,
)

# How each instruction class contributes: "pure" (varying iff an operand is),
# "varying" (always varying), "special" (depends on kind), "none" (no result).
UNIFORMITY_RULES = {
    BinOp: "pure", Compare: "pure", UnaryOp: "pure", Cast: "pure", Select: "pure",
    Special: "special", ShapeOf: "pure", Load: "varying", Atomic: "varying",
    Store: "none", Barrier: "none", Assert: "none", Requires: "none",
    RequiresArray: "none", Phi: "phi",
}


def _rule(ins) -> str:
    try:
        return UNIFORMITY_RULES[type(ins)]
    except KeyError:
        raise TypeError(f"uniformity: no rule for MIR {type(ins).__name__}") from None


def _immediate_dom(dom: dict[str, DominatorSet], label: str) -> str | None:
    if dom[label].reachable:
        return dom[label].immediate
    strict = set(dom[label]) - {label}
    for cand in strict:
        if all(o == cand or o in dom[cand] for o in strict):
            return cand
    return None


def _immediate_pdom(pdom: dict[str, DominatorSet], label: str) -> str | None:
    if pdom[label].reachable:
        return pdom[label].immediate
    strict = set(pdom[label]) - {label}
    for cand in strict:
        if all(o == cand or o in pdom[cand] for o in strict):
            return cand
    return None


def _join_region(kernel: Kernel, preds, label: str, idom: str | None) -> set[str]:
    """Blocks from which `label` is reached without passing its idom (idom included)."""
    region: set[str] = set()
    stack = list(preds[label])
    while stack:
        b = stack.pop()
        if b in region:
            continue
        region.add(b)
        if b == idom:
            continue
        stack.extend(preds[b])
    return region


#: Steps noted per block for each of the dominator and post-dominator trees it makes
#: (their cost per block, measured: about 7 us a block each).
TREE_STEPS_PER_BLOCK = 16


def controlling_branches(kernel: Kernel, dom: dict[str, DominatorSet] | None = None) -> dict[str, list[str]]:
    """For each block with phis: the blocks whose branch decides which incoming
    edge is taken (branches whose arms reconverge before the join excluded).
    `dom`: the kernel's dominators when the caller has them (`dominators(kernel)`).
    Notes its steps (the trees it makes, each join region's blocks) to the work budget."""
    note_analysis(TREE_STEPS_PER_BLOCK * len(kernel.blocks) * (1 if dom is not None else 2))
    dom = dom if dom is not None else dominators(kernel)
    pdom = postdominators(kernel)
    preds = kernel.predecessors()
    # the blocks ending in a two-way branch, each with its immediate post-dominator
    # (looked up once: a branch lies in the regions of many joins)
    branches = {blk.label: _immediate_pdom(pdom, blk.label) for blk in kernel.blocks
                if isinstance(t := blk.terminator, Branch) and t.if_true != t.if_false}
    out: dict[str, list[str]] = {}
    for b in kernel.blocks:
        if not b.phis:
            continue
        idom = _immediate_dom(dom, b.label)
        region = _join_region(kernel, preds, b.label, idom)
        note_analysis(1 + 4 * len(region))       # walked, sorted, each terminator looked at
        ctl = []
        for z in sorted(z for z in region if z in branches):
            p = branches[z]
            if p is not None and p != b.label and p in region:
                continue
            ctl.append(z)
        out[b.label] = ctl
    return out


def varying_values(kernel: Kernel, dom: dict[str, DominatorSet] | None = None) -> frozenset[int]:
    """Ids of values that may differ between threads of one block (`dom`: the
    kernel's dominators, when the caller has them)."""
    varying: set[int] = set()
    ctl = controlling_branches(kernel, dom)
    # the conditions deciding each join, once (only branches control a join)
    conds_of = {label: [t.cond for z in zs if isinstance(t := kernel.block(z).terminator, Branch)]
                for label, zs in ctl.items()}
    size = sum(1 + len(b.phis) + len(b.instrs) for b in kernel.blocks)

    def vary(op) -> bool:
        return isinstance(op, Value) and op.id in varying

    changed = True
    while changed:
        changed = False
        note_analysis(size)                      # a round visits every block, phi and instruction
        for b in kernel.blocks:
            for phi in b.phis:
                if phi.result.id in varying:
                    continue
                conds = conds_of.get(b.label, ())
                if any(vary(v) for _, v in phi.incoming) or any(vary(c) for c in conds):
                    varying.add(phi.result.id)
                    changed = True
            for ins in b.instrs:
                rule = _rule(ins)
                res = getattr(ins, "result", None)
                if rule == "none" or res is None or res.id in varying:
                    continue
                if rule == "varying":
                    now = True
                elif rule == "special":
                    now = isinstance(ins, Special) and ins.kind == "thread_idx"
                else:
                    now = any(vary(o) for o in ins.operands())
                if now:
                    varying.add(res.id)
                    changed = True
    return frozenset(varying)
