"""CFG utilities over MIR kernels: orders, dominators, post-dominators.

Invariant: every function here is pure and iterative (no recursion), so deep
kernels never hit Python's recursion limit.
"""
from __future__ import annotations

import dataclasses

from .nodes import Branch, Jump, Kernel


def reverse_postorder(k: Kernel) -> list[str]:
    """Labels of blocks reachable from entry, in reverse postorder (for a
    reducible CFG: a loop header precedes its body and its exit follows it)."""
    seen: set[str] = set()
    post: list[str] = []
    stack: list[tuple[str, int]] = [(k.entry.label, 0)]
    seen.add(k.entry.label)
    while stack:
        label, i = stack.pop()
        succs = k.block(label).terminator.successors()
        if i < len(succs):
            stack.append((label, i + 1))
            s = succs[i]
            if s not in seen:
                seen.add(s)
                stack.append((s, 0))
        else:
            post.append(label)
    post.reverse()
    return post


def dominators(k: Kernel) -> dict[str, set[str]]:
    """For each block label, the set of labels that dominate it (itself included).
    Unreachable blocks map to the set of all labels."""
    rpo = reverse_postorder(k)
    preds = k.predecessors()
    every = {b.label for b in k.blocks}
    dom = {label: set(every) for label in every}
    dom[k.entry.label] = {k.entry.label}
    changed = True
    while changed:
        changed = False
        for label in rpo[1:]:
            ps = [p for p in preds[label] if p in dom]
            new = set.intersection(*(dom[p] for p in ps)) if ps else set()
            new = new | {label}
            if new != dom[label]:
                dom[label] = new
                changed = True
    return dom


def postdominators(k: Kernel) -> dict[str, set[str]]:
    """For each block, the labels that post-dominate it (with a virtual exit
    joining every Return)."""
    every = [b.label for b in k.blocks]
    succs = {b.label: list(b.terminator.successors()) for b in k.blocks}
    pdom = {label: set(every) for label in every}
    for label in every:
        if not succs[label]:
            pdom[label] = {label}
    changed = True
    while changed:
        changed = False
        for label in reversed(every):
            if not succs[label]:
                continue
            new = set.intersection(*(pdom[s] for s in succs[label])) | {label}
            if new != pdom[label]:
                pdom[label] = new
                changed = True
    return pdom


def immediate_postdominator(k: Kernel, label: str, pdom=None) -> str | None:
    """The nearest strict post-dominator of `label` (None: only the exit)."""
    pdom = pdom or postdominators(k)
    strict = pdom[label] - {label}
    for cand in strict:
        if all(other == cand or other in pdom[cand] for other in strict):
            return cand
    return None


def retarget(term, f):
    """The terminator `term` with each successor label d replaced by f(d)."""
    if isinstance(term, Jump):
        return dataclasses.replace(term, target=f(term.target))
    if isinstance(term, Branch):
        return dataclasses.replace(term, if_true=f(term.if_true), if_false=f(term.if_false))
    return term
