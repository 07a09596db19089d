"""CFG utilities over MIR kernels: reachability, orders, dominators,
post-dominators, loop depths and the forward (acyclic) shape the SMT encoder,
the prover and the simulator share.

Invariant: every function here is pure and iterative (no recursion), so deep
kernels never hit Python's recursion limit; `CfgShape` is computed once per
kernel and never changes afterwards (only its forward-reachability cache fills).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

from .facts import definitions, writes_memory
from .nodes import Block, Branch, Instr, Jump, Kernel, Phi, Return


class UnstructuredCycle(Exception):
    """The CFG has a cycle that is not one of the kernel's source loops, so it
    has no forward (acyclic) order; a prover reports obligations that need
    one as unknown with this message."""


def reachable_labels(blocks: Sequence[Block]) -> set[str]:
    """Labels of the blocks reachable from `blocks[0]` (the entry)."""
    by_label = {b.label: b for b in blocks}
    seen, stack = {blocks[0].label}, [blocks[0].label]
    while stack:
        for succ in by_label[stack.pop()].terminator.successors():
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    return seen


def forward_successors(k: Kernel, back_edges: set[tuple[str, str]], label: str) -> frozenset[str]:
    """Blocks reachable from `label` along one or more edges that are not in
    `back_edges` (`label` itself only if such a path returns to it)."""
    seen: set[str] = set()
    stack = [label]
    while stack:
        lbl = stack.pop()
        for s in k.block(lbl).terminator.successors():
            if (lbl, s) not in back_edges and s not in seen:
                seen.add(s)
                stack.append(s)
    return frozenset(seen)


def reverse_postorder(k: Kernel, successor_key: Callable[[str], int] | None = None) -> list[str]:
    """Labels of blocks reachable from entry, in reverse postorder (for a
    reducible CFG: a loop header precedes its body and its exit follows it).
    `successor_key`: the depth-first search visits a block's successors in
    ascending key order (stable), else in the terminator's order."""
    seen: set[str] = set()
    post: list[str] = []
    stack: list[tuple[str, int]] = [(k.entry.label, 0)]
    seen.add(k.entry.label)
    succ_cache: dict[str, tuple[str, ...]] = {}
    while stack:
        label, i = stack.pop()
        succs = succ_cache.get(label)
        if succs is None:
            raw = k.block(label).terminator.successors()
            succs = tuple(sorted(raw, key=successor_key) if successor_key is not None else raw)
            succ_cache[label] = succs
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


class DominatorSet:
    """The labels that dominate one block, as a read-only set: `x in s` in
    constant time from the dominator tree's preorder intervals (an ancestor's
    interval holds its descendants'), iteration walks the immediate-dominator
    chain up to the entry. An unreachable block's set holds every label."""

    __slots__ = ("_tree", "_label")

    def __init__(self, tree: "_DominatorTree", label: str):
        self._tree, self._label = tree, label

    def __contains__(self, other: object) -> bool:
        return self._tree.dominates(other, self._label)

    def __iter__(self):
        tree = self._tree
        if self._label not in tree.pre:
            return iter(tree.every)
        chain, label = [], self._label
        while label is not None:
            chain.append(label)
            label = tree.idom[label]
        return iter(chain)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DominatorSet):
            other = set(other)
        return isinstance(other, (set, frozenset)) and set(self) == other

    __hash__ = None  # type: ignore[assignment]

    @property
    def reachable(self) -> bool:
        return self._label in self._tree.pre

    @property
    def immediate(self) -> str | None:
        """The nearest strict dominator of a reachable block (None: the entry)."""
        return self._tree.idom[self._label]

    def __repr__(self) -> str:
        return f"DominatorSet({sorted(self)!r})"


@dataclasses.dataclass
class _DominatorTree:
    """Immediate dominators of the reachable blocks (the entry's is None) and
    each one's [pre, post) interval in a preorder walk of the dominator tree."""
    every: tuple[str, ...]
    idom: dict[str, str | None]
    pre: dict[str, int]
    post: dict[str, int]

    def dominates(self, a: object, b: str) -> bool:
        if b not in self.pre:                     # unreachable: every label
            return a in self.every
        if a not in self.pre:
            return False
        return self.pre[a] <= self.pre[b] < self.post[a]


def _tree(root: str, successors, predecessors, every: tuple[str, ...]) -> _DominatorTree:
    """The dominator tree of the graph reachable from `root` along `successors`:
    Cooper, Harvey and Kennedy's iteration over reverse postorder, each node's
    immediate dominator the meet of its processed predecessors' (unreachable
    predecessors take no part), until nothing changes."""
    post_order: list[str] = []
    seen = {root}
    walk: list[tuple[str, int]] = [(root, 0)]
    while walk:
        label, i = walk.pop()
        succs = successors(label)
        if i < len(succs):
            walk.append((label, i + 1))
            if succs[i] not in seen:
                seen.add(succs[i])
                walk.append((succs[i], 0))
        else:
            post_order.append(label)
    rpo = post_order[::-1]
    order = {label: i for i, label in enumerate(rpo)}
    idom: dict[str, str] = {root: root}

    def meet(a: str, b: str) -> str:
        while a != b:
            while order[a] > order[b]:
                a = idom[a]
            while order[b] > order[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for label in rpo[1:]:
            new = None
            for p in predecessors(label):
                if p in idom:
                    new = p if new is None else meet(p, new)
            if new is not None and idom.get(label) != new:
                idom[label] = new
                changed = True
    children: dict[str, list[str]] = {label: [] for label in idom}
    for label in rpo[1:]:
        children[idom[label]].append(label)
    pre: dict[str, int] = {}
    post: dict[str, int] = {}
    counter = 0
    stack: list[tuple[str, bool]] = [(root, False)]
    while stack:
        label, done = stack.pop()
        if done:
            post[label] = counter
            continue
        pre[label] = counter
        counter += 1
        stack.append((label, True))
        stack.extend((c, False) for c in reversed(children[label]))
    parent: dict[str, str | None] = {label: idom[label] for label in idom}
    parent[root] = None
    return _DominatorTree(every, parent, pre, post)


def dominators(k: Kernel) -> dict[str, DominatorSet]:
    """For each block label, the labels that dominate it (itself included), as
    a `DominatorSet` (membership in constant time: the kernels of real projects
    have tens of thousands of blocks, where a set per block is quadratic).
    Unreachable blocks map to the set of all labels."""
    succs = {b.label: b.terminator.successors() for b in k.blocks}
    preds: dict[str, list[str]] = {label: [] for label in succs}
    for label, out in succs.items():
        for s in out:
            preds[s].append(label)
    tree = _tree(k.entry.label, succs.__getitem__, preds.__getitem__, tuple(succs))
    return {label: DominatorSet(tree, label) for label in tree.every}


def runs_before(dom: dict[str, DominatorSet], point: tuple[str, int], site: tuple[str, int]) -> bool:
    """Every path to `site` runs `point` first (both (block label, instruction
    index)): earlier in the same block, or in a block that dominates the site's
    (`dom`: `dominators(kernel)`)."""
    (pl, pp), (sl, sp) = point, site
    return pp < sp if pl == sl else pl in dom.get(sl, ())


#: the virtual exit every Return jumps to, the root of the post-dominator tree
_EXIT = "\x00exit"


def postdominators(k: Kernel) -> dict[str, DominatorSet]:
    """For each block, the labels that post-dominate it (itself included; with a
    virtual exit joining every Return, not itself a label), as a `DominatorSet`
    of the post-dominator tree. A block from which no Return is reachable maps to
    the set of all labels."""
    succs = {b.label: tuple(b.terminator.successors()) for b in k.blocks}
    preds: dict[str, list[str]] = {label: [] for label in succs}
    returns = [label for label, out in succs.items() if not out]
    for label, out in succs.items():
        for s in out:
            preds[s].append(label)

    def reverse_successors(label: str):
        return returns if label == _EXIT else preds[label]

    def reverse_predecessors(label: str):
        return succs[label] or (_EXIT,)

    tree = _tree(_EXIT, reverse_successors, reverse_predecessors, tuple(succs))
    tree.pre.pop(_EXIT, None)       # the virtual exit is no label: in no set
    for label, parent in tree.idom.items():
        if parent == _EXIT:
            tree.idom[label] = None
    return {label: DominatorSet(tree, label) for label in tree.every}


def immediate_postdominator(k: Kernel, label: str, pdom=None) -> str | None:
    """The nearest strict post-dominator of `label` (None: only the exit)."""
    pdom = pdom or postdominators(k)
    if pdom[label].reachable:
        return pdom[label].immediate
    strict = set(pdom[label]) - {label}
    for cand in strict:
        if all(other == cand or other in pdom[cand] for other in strict):
            return cand
    return None


def loop_depths(kernel: Kernel) -> dict[str, int]:
    """label -> number of natural loops (from back edges t -> h, h dominating
    t) that contain the block."""
    dom = dominators(kernel)
    preds = kernel.predecessors()
    depth = {b.label: 0 for b in kernel.blocks}
    for b in kernel.blocks:
        for h in b.terminator.successors():
            if h not in dom[b.label]:
                continue
            body, work = {h, b.label}, [b.label]
            while work:
                x = work.pop()
                if x == h:
                    continue
                for p in preds[x]:
                    if p not in body:
                        body.add(p)
                        work.append(p)
            for x in body:
                depth[x] += 1
    return depth


def retarget(term, f):
    """The terminator `term` with each successor label d replaced by f(d)."""
    if isinstance(term, Jump):
        return dataclasses.replace(term, target=f(term.target))
    if isinstance(term, Branch):
        return dataclasses.replace(term, if_true=f(term.if_true), if_false=f(term.if_false))
    return term


class CfgShape:
    """Kernel-level CFG facts shared by every copy: forward (acyclic) order,
    back edges, loop membership.

    `loop_bodies` maps a header to a set of labels, for membership only: its
    iteration order follows string hashes (PYTHONHASHSEED), so anything that
    builds solver terms in body order iterates `loops[header].body` (source
    order) instead."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.loops = {lp.header: lp for lp in kernel.loops}
        self.back_edges: set[tuple[str, str]] = set()
        for lp in kernel.loops:
            for latch in lp.latches:
                self.back_edges.add((latch, lp.header))
        preds = kernel.predecessors()
        self.forward_preds = {lbl: [p for p in ps if (p, lbl) not in self.back_edges]
                              for lbl, ps in preds.items()}
        indeg = {lbl: len(ps) for lbl, ps in self.forward_preds.items()}
        ready = [kernel.entry.label] if indeg.get(kernel.entry.label) == 0 else []
        order, seen = [], set()
        while ready:
            lbl = ready.pop()
            order.append(lbl)
            seen.add(lbl)
            succs = kernel.block(lbl).terminator.successors()
            for s in reversed(succs):
                if (lbl, s) in self.back_edges:
                    continue
                indeg[s] -= 1
                if indeg[s] == 0:
                    ready.append(s)
        reachable = sorted(reachable_labels(kernel.blocks))
        missing = [lbl for lbl in reachable if lbl not in seen]
        if missing:
            raise UnstructuredCycle(
                f"control flow with a cycle that is not a source loop (blocks {missing[:3]})")
        self.order = order
        self.loop_of: dict[str, list[str]] = {b.label: [] for b in kernel.blocks}
        for lp in kernel.loops:           # outermost first
            for lbl in lp.body:
                self.loop_of[lbl].append(lp.header)
        self.position = {lbl: i for i, lbl in enumerate(order)}
        self.written = _written_arrays(kernel)
        self.dominators = dominators(kernel)
        self.defining: dict[int, Instr | Phi] = definitions(kernel)
        self.defined_in: dict[int, str] = {
            r.id: b.label for b in kernel.blocks for ins in (*b.phis, *b.instrs)
            if (r := getattr(ins, "result", None)) is not None}
        self.loop_bodies = {lp.header: set(lp.body) for lp in kernel.loops}
        # exit label -> loop header, for loops left only through `exit` and
        # containing no Return
        self.clean_exit_of: dict[str, str] = {}
        for lp in kernel.loops:
            body = self.loop_bodies[lp.header]
            leaves = {s for lbl in body for s in kernel.block(lbl).terminator.successors()
                      if s not in body}
            returns = any(isinstance(kernel.block(lbl).terminator, Return) for lbl in body)
            if leaves == {lp.exit} and not returns:
                self.clean_exit_of[lp.exit] = lp.header

    def innermost_loop(self, label: str) -> str | None:
        chain = self.loop_of.get(label) or []
        return chain[-1] if chain else None

    def forward_reachable(self, label: str) -> frozenset[str]:
        """Blocks reachable from `label` along forward edges (back edges
        excluded), `label` itself included: the blocks one pass of the thread
        through the acyclic encoding can visit after `label`."""
        cache = self.__dict__.setdefault("_forward_reach", {})
        out = cache.get(label)
        if out is None:
            out = cache[label] = forward_successors(self.kernel, self.back_edges, label) | {label}
        return out


def _written_arrays(kernel: Kernel) -> frozenset[str]:
    return frozenset(ins.array.name for _, ins in kernel.instructions()
                     if writes_memory(ins))
