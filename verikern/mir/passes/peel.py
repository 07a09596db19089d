"""Loop peeling: the first iterations of every loop as straight-line copies.

`peel_loops(kernel, iterations)` returns an equivalent kernel in which each
loop (nested loops too, within an instruction budget) is preceded by
`iterations` copies of its body, iteration 1 first; the loop itself stays,
entered from the last copy's latches, so it runs the remaining iterations.
A prover that havocs loop headers sees the peeled iterations exactly.

Invariants:
- the result passes `verikern.mir.verifier.verify` and behaves like the input
  on every launch: the same memory effects and the same error at the same
  source location (copies keep each instruction's SourceLoc; a copied
  `vk.invariant` of the peeled loop becomes a plain `assert` of the same
  condition and message, since it is no longer the first instruction of a
  loop body -- it checks the same thing at the same place);
- value ids and block labels of the copies are fresh; the original blocks
  keep their labels and the positions of their instructions;
- `Kernel.loops` describes the remaining loops (enclosing loops' bodies
  include the copies; loops copied along with an enclosing loop's body are
  listed, right after the loop they were copied from);
- the `SiteMap` maps every (label, instruction position) of the result to
  the site of the input it copies, and names the peeled iteration(s) a
  copied block belongs to;
- a peeled iteration keeps its barriers (every thread that runs the copy
  runs them, as it would the loop's iteration);
- loops whose shape the simple SSA repair here does not cover (an exit other
  than `LoopInfo.exit`, a value of the loop used where the exit does not
  dominate) are left exactly as they are.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

from ..cfg import dominators, retarget as _retarget
from ..nodes import (
    Assert, Block, Kernel, LoopInfo, Phi, Value,
)
from .base import rewrite_instr

Site = tuple[str, int]
#: One peeled iteration: (line of the loop in the source, iteration number, 1-based).
Iteration = tuple[int, int]


@dataclass
class SiteMap:
    """Where each block of a peeled kernel comes from.

    origin[label]: the label of the input kernel's block it copies (itself
    for original blocks); iterations[label]: the peeled iterations the copy
    lies in, outermost loop first (empty for original blocks)."""

    origin: dict[str, str] = field(default_factory=dict)
    iterations: dict[str, tuple[Iteration, ...]] = field(default_factory=dict)

    def __getitem__(self, site: Site) -> Site:
        """The input kernel's site for a site of the peeled kernel."""
        return self.origin[site[0]], site[1]

    def copies(self, site: Site) -> list[Site]:
        """Every peeled copy of an input site (original blocks excluded), in
        the order of their iterations (earliest first)."""
        labels = [lbl for lbl, orig in self.origin.items()
                  if orig == site[0] and self.iterations.get(lbl)]
        labels.sort(key=lambda lbl: (len(self.iterations[lbl]),
                                     [j for _, j in self.iterations[lbl]]))
        return [(lbl, site[1]) for lbl in labels]

    def describe(self, label: str) -> str:
        """'iteration 2 of the loop at line 12' (outermost first), or ''."""
        parts = [f"iteration {j} of the loop at line {line}"
                 for line, j in self.iterations.get(label, ())]
        return ", in ".join(reversed(parts))


def peel_loops(kernel: Kernel, iterations: int, max_instructions: int | None = None,
               outer_only: bool = False) -> tuple[Kernel, SiteMap]:
    """Peel the first `iterations` iterations of every loop (see module
    docstring). Outer loops are peeled first; loops copied with them are
    peeled in turn. No peel happens once the kernel would grow past
    `max_instructions` (default: 8 times the input plus 200). With
    `outer_only`, a nested loop is peeled only in the peeled iterations of
    the loops around it, not inside what remains of them (all a consumer that
    looks only at code outside the remaining loops needs)."""
    size = _size(kernel)
    budget = max_instructions if max_instructions is not None else 8 * size + 200
    sites = SiteMap({b.label: b.label for b in kernel.blocks},
                    {b.label: () for b in kernel.blocks})
    peeler = _Peeler(kernel, sites)
    nested = {inner.header for inner in kernel.loops for outer in kernel.loops
              if outer.header != inner.header and inner.header in outer.body}
    worklist = [lp.header for lp in kernel.loops
                if not (outer_only and lp.header in nested)]
    while worklist:
        header = worklist.pop(0)
        for _ in range(iterations):
            loop = peeler.loop(header)
            if _size(peeler.kernel) + _loop_size(peeler.kernel, loop) > budget:
                break
            new_loops = peeler.peel(loop)
            if new_loops is None:
                break
            worklist.extend(new_loops)
    return peeler.kernel, peeler.sites


def _size(kernel: Kernel) -> int:
    return sum(len(b.phis) + len(b.instrs) + 1 for b in kernel.blocks)


def _loop_size(kernel: Kernel, loop: LoopInfo) -> int:
    return sum(len(kernel.block(lbl).phis) + len(kernel.block(lbl).instrs) + 1
               for lbl in loop.body)


def _max_value_id(kernel: Kernel) -> int:
    ids = [p.value.id for p in kernel.scalar_params]
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs):
            res = getattr(ins, "result", None)
            if res is not None:
                ids.append(res.id)
    return max(ids, default=-1)


class _Peeler:
    """The kernel being peeled, its SiteMap, and fresh-name counters."""

    def __init__(self, kernel: Kernel, sites: SiteMap):
        self.kernel = kernel
        self.sites = sites
        self._ids = itertools.count(_max_value_id(kernel) + 1)
        self._serial = itertools.count(1)
        self._peeled: dict[str, int] = {}          # header -> iterations peeled so far
        # set by _splice for _new_loop_infos (one peel): the map of loop values
        # to their exit phis, and the rewritten Asserts outside the loop
        self._outside = lambda v: v
        self._renamed_outside: dict[int, Assert] = {}

    def loop(self, header: str) -> LoopInfo:
        return next(lp for lp in self.kernel.loops if lp.header == header)

    # ------------------------------------------------------------ one peel
    def peel(self, loop: LoopInfo) -> list[str] | None:
        """Peel one more iteration of `loop` in front of it; the headers of
        the loops copied along (nested in it), or None when the loop's shape
        is not supported (the kernel is then unchanged)."""
        k = self.kernel
        body = set(loop.body)
        repairs = self._repairs_needed(loop, body)
        if repairs is None:
            return None
        serial = next(self._serial)
        labels = {lbl: self._fresh_label(lbl, serial) for lbl in loop.body}
        values = {}
        for lbl in loop.body:
            b = k.block(lbl)
            for ins in (*b.phis, *b.instrs):
                res = getattr(ins, "result", None)
                if res is not None:
                    values[res.id] = Value(next(self._ids), res.type, res.name)
        iteration = self._peeled.get(loop.header, 0) + 1
        copies, renamed_asserts = self._copy_blocks(loop, body, labels, values)
        blocks = self._splice(loop, body, labels, values, copies, repairs)
        new_loops = self._new_loop_infos(loop, body, labels, values, renamed_asserts)
        self.kernel = dataclasses.replace(k, blocks=tuple(blocks), loops=tuple(new_loops))
        self._record_sites(loop, labels, iteration)
        self._peeled[loop.header] = iteration
        inner = [lp.header for lp in k.loops if lp.header != loop.header and lp.header in body]
        for h, n in list(self._peeled.items()):
            if h in labels and h != loop.header:
                self._peeled[labels[h]] = n
        return [labels[h] for h in inner]

    def _fresh_label(self, label: str, serial: int) -> str:
        existing = {b.label for b in self.kernel.blocks}
        base = f"{label}_p{serial}"
        name, n = base, 0
        while name in existing:
            n += 1
            name = f"{base}_{n}"
        return name

    def _repairs_needed(self, loop: LoopInfo, body: set[str]) -> list[Value] | None:
        """Values of the loop used outside it (other than by the exit's phis
        on edges from the loop), which need a phi at the exit; None when the
        loop cannot be peeled (other exits, undominated uses)."""
        k = self.kernel
        preds = k.predecessors()
        for lbl in loop.body:
            b = k.block(lbl)
            if any(s not in body and s != loop.exit for s in b.terminator.successors()):
                return None
        if loop.exit in body or any(p in body for p in preds[loop.header]
                                    if p not in loop.latches):
            return None
        defined = {}
        for lbl in loop.body:
            b = k.block(lbl)
            for ins in (*b.phis, *b.instrs):
                res = getattr(ins, "result", None)
                if res is not None:
                    defined[res.id] = (res, lbl)
        used_outside: dict[int, Value] = {}
        use_blocks: set[str] = set()
        for b in k.blocks:
            if b.label in body:
                continue
            for phi in b.phis:
                for src, v in phi.incoming:
                    if isinstance(v, Value) and v.id in defined and src not in body:
                        used_outside[v.id] = v
                        use_blocks.add(src)
            for ins in (*b.instrs, b.terminator):
                for v in ins.operands():
                    if isinstance(v, Value) and v.id in defined:
                        used_outside[v.id] = v
                        use_blocks.add(b.label)
        for lp in k.loops:
            if lp.range is not None and lp.header not in body:
                for v in (lp.range.start, lp.range.stop, lp.range.step):
                    if isinstance(v, Value) and v.id in defined:
                        used_outside[v.id] = v
                        use_blocks.add(lp.header)
        if not used_outside:
            return []
        dom = dominators(k)
        if any(p not in body for p in preds[loop.exit]):
            return None
        if any(loop.exit not in dom[u] for u in use_blocks):
            return None
        if any(defined[v][1] not in dom[loop.exit] for v in used_outside):
            return None
        return list(used_outside.values())

    def _copy_blocks(self, loop, body, labels, values):
        """The copies of the loop's blocks: the copied header keeps only the
        entry edges, back edges go to the original header, exits to the exit."""

        def val(v):
            return values.get(v.id, v) if isinstance(v, Value) else v

        def target(src: str, dst: str) -> str:
            if dst == loop.header and src in loop.latches:
                return loop.header
            return labels.get(dst, dst) if dst in body else dst

        renamed_asserts: dict[int, Assert] = {}
        own_invariants = {id(a) for a in loop.invariants}
        copies = []
        for lbl in loop.body:
            b = self.kernel.block(lbl)
            phis = []
            for phi in b.phis:
                incoming = phi.incoming
                if lbl == loop.header:
                    incoming = tuple((s, v) for s, v in incoming if s not in loop.latches)
                else:
                    incoming = tuple((labels.get(s, s), val(v)) for s, v in incoming)
                phis.append(Phi(val(phi.result), incoming, phi.loc))
            instrs = []
            for ins in b.instrs:
                new = rewrite_instr(ins, val)
                res = getattr(ins, "result", None)
                if res is not None:
                    new = dataclasses.replace(new, result=val(res))
                if isinstance(ins, Assert):
                    if id(ins) in own_invariants:
                        new = dataclasses.replace(new, kind="assert")
                    renamed_asserts[id(ins)] = new
                instrs.append(new)
            copies.append(Block(labels[lbl], tuple(phis), tuple(instrs),
                                _retarget(rewrite_instr(b.terminator, val),
                                          lambda d, s=lbl: target(s, d))))
        return copies, renamed_asserts

    def _splice(self, loop, body, labels, values, copies, repairs) -> list[Block]:
        """The kernel's blocks with the copies inserted before the header:
        entry edges go to the copy, the header's phis take their entry values
        from the copy's latches, the exit's phis get the copies' edges, and
        values of the loop used after it go through new phis at the exit."""
        k = self.kernel
        header_preds_outside = {p for p in k.predecessors()[loop.header]
                                if p not in loop.latches}
        self._renamed_outside = {}
        repair_phis: dict[int, Value] = {}
        exit_preds = list(k.predecessors()[loop.exit])
        new_repairs = []
        for v in repairs:
            res = Value(next(self._ids), v.type, v.name)
            incoming = tuple((p, v) for p in exit_preds) + \
                tuple((labels[p], values.get(v.id, v)) for p in exit_preds)
            new_repairs.append(Phi(res, incoming, loop.loc))
            repair_phis[v.id] = res

        def outside(v):
            return repair_phis.get(v.id, v) if isinstance(v, Value) else v

        blocks = []
        for b in k.blocks:
            if b.label == loop.header:
                blocks.extend(copies)
                blocks.append(self._header_with_copy_entries(b, loop, labels, values))
            elif b.label in body:
                blocks.append(b)
            elif b.label == loop.exit:
                phis = tuple(Phi(p.result, p.incoming + tuple(
                    (labels[s], values.get(v.id, v) if isinstance(v, Value) else v)
                    for s, v in p.incoming if s in body), p.loc) for p in b.phis)
                blocks.append(self._rewrite_outside(
                    Block(b.label, phis + tuple(new_repairs), b.instrs, b.terminator),
                    outside, header_preds_outside, loop, labels, skip_phis=True))
            else:
                blocks.append(self._rewrite_outside(b, outside, header_preds_outside,
                                                    loop, labels))
        self._outside = outside
        return blocks

    def _header_with_copy_entries(self, b: Block, loop, labels, values) -> Block:
        def val(v):
            return values.get(v.id, v) if isinstance(v, Value) else v

        phis = []
        for phi in b.phis:
            back = tuple((s, v) for s, v in phi.incoming if s in loop.latches)
            from_copy = tuple((labels[s], val(v)) for s, v in back)
            phis.append(Phi(phi.result, from_copy + back, phi.loc))
        return Block(b.label, tuple(phis), b.instrs, b.terminator)

    def _rewrite_outside(self, b: Block, outside, header_preds, loop, labels,
                         skip_phis: bool = False) -> Block:
        """A block outside the loop: uses of repaired values replaced, and an
        entry edge into the loop redirected to the copied header."""
        phis = b.phis if skip_phis else tuple(rewrite_instr(p, outside) for p in b.phis)
        instrs = []
        for ins in b.instrs:
            new = rewrite_instr(ins, outside)
            if new is not ins and isinstance(ins, Assert):
                self._renamed_outside[id(ins)] = new
            instrs.append(new)
        term = rewrite_instr(b.terminator, outside)
        if b.label in header_preds:
            copy_header = labels[loop.header]
            term = _retarget(term, lambda d: copy_header if d == loop.header else d)
        return Block(b.label, phis, tuple(instrs), term)

    def _new_loop_infos(self, loop, body, labels, values, renamed_asserts) -> list[LoopInfo]:
        """Loop metadata after one peel of `loop` (see module docstring)."""
        outside, renamed_out = self._outside, self._renamed_outside

        def val(v):
            return values.get(v.id, v) if isinstance(v, Value) else v

        out = []
        for lp in self.kernel.loops:
            if lp.header == loop.header:
                out.append(self._remaining_loop(lp, labels, values))
                out.extend(_copy_loop(inner, labels, val, renamed_asserts)
                           for inner in self.kernel.loops
                           if inner.header != loop.header and inner.header in body)
                continue
            if lp.header in body:
                out.append(lp)                      # nested: unchanged
                continue
            rng = lp.range
            if rng is not None:
                rng = dataclasses.replace(rng, start=outside(rng.start),
                                          stop=outside(rng.stop), step=outside(rng.step))
            invs = tuple(renamed_out.get(id(a), a) for a in lp.invariants)
            new_body = lp.body
            if loop.header in lp.body:              # an enclosing loop
                new_body = lp.body + tuple(labels[lbl] for lbl in loop.body)
            out.append(dataclasses.replace(lp, body=new_body, range=rng, invariants=invs))
        return out

    def _remaining_loop(self, lp: LoopInfo, labels, values) -> LoopInfo:
        """The peeled loop itself: its range counter now starts at the value
        the copy's latch brings (None when several latches bring values)."""
        rng = lp.range
        if rng is None:
            return lp
        phi = next(p for p in self.kernel.block(lp.header).phis if p.result == rng.counter)
        starts = {v for s, v in phi.incoming if s in lp.latches}
        if len(starts) != 1:
            return dataclasses.replace(lp, range=None)
        (start,) = starts
        start = values.get(start.id, start) if isinstance(start, Value) else start
        return dataclasses.replace(lp, range=dataclasses.replace(rng, start=start))

    def _record_sites(self, loop: LoopInfo, labels, iteration: int) -> None:
        for lbl, new in labels.items():
            self.sites.origin[new] = self.sites.origin[lbl]
            self.sites.iterations[new] = self.sites.iterations[lbl] + \
                ((loop.loc.line, iteration),)


def _copy_loop(lp: LoopInfo, labels, val, renamed_asserts) -> LoopInfo:
    """The LoopInfo of a loop nested in a peeled loop, for its copy."""
    rng = lp.range
    if rng is not None:
        rng = dataclasses.replace(rng, counter=val(rng.counter), start=val(rng.start),
                                  stop=val(rng.stop), step=val(rng.step))
    return dataclasses.replace(
        lp, header=labels[lp.header], body=tuple(labels[b] for b in lp.body),
        latches=tuple(labels[b] for b in lp.latches), exit=labels.get(lp.exit, lp.exit),
        range=rng, invariants=tuple(renamed_asserts.get(id(a), a) for a in lp.invariants))


__all__ = ["peel_loops", "SiteMap"]
