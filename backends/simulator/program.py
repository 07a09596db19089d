"""A kernel decoded once for the scheduler: segments in execution priority.

Invariant: `Program.segments` lists every reachable MIR block split at its
barriers, ordered by (position of the block in `execution_order`, a reverse
postorder in which every block of a loop precedes the loop's exits; position
in the block); a segment that starts right after a Barrier has `barrier` set
(threads wait there until the whole block arrives).  `frees[i]` names the
values whose every use lies in this segment at or before step i (they are
dropped from the environment afterwards to bound memory); `term_frees` those
last used by the terminator or its outgoing phi copies; `local_values` the
values that never need a lane-length copy (see instructions.store_result).  Pure instructions
whose value nothing needs get no step (they carry no obligation and cannot
fail); every Load/Store/Atomic/Assert/Requires/division keeps its step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from verikern.mir.cfg import loop_depths, postdominators, reverse_postorder
from verikern.mir.facts import (
    accesses_memory, definitions, removable_if_unused, writes_memory,
)
from verikern.mir.nodes import (
    Barrier, BinOp, Instr, Kernel, Phi, Special, Value,
)

from .instructions import BarrierPoint, compile_instruction, compile_linear_id


@dataclass
class Segment:
    """A run of one block's instructions between barriers (see module doc)."""

    index: int
    label: str
    first: bool
    barrier: Barrier | None
    steps: list = field(default_factory=list)
    frees: list = field(default_factory=list)
    term: object = None              # TerminatorStep, or None: falls into next segment
    term_frees: tuple = ()
    positions: list = field(default_factory=list)   # instr position of each step
    loc: object = None               # where the segment's code starts (for messages)
    local_values: frozenset = frozenset()   # used only by this segment's steps


@dataclass
class Program:
    """Everything the scheduler needs about one kernel, decoded once."""

    kernel: Kernel
    segments: list
    first_segment: dict              # block label -> segment index
    phis: dict                       # (pred label, succ label) -> list[(vid, dtype, getter)]
    sites: dict                      # id(access instr) -> site number
    has_barriers: bool = False
    read_only_arrays: frozenset = frozenset()
    postdominators: dict = field(default_factory=dict)
    bytes_per_lane: int = 0          # upper bound on value bytes one lane may hold at once


_CACHE: dict = {}


def program_for(kernel: Kernel) -> Program:
    """The decoded program of `kernel` (cached per kernel object)."""
    hit = _CACHE.get(id(kernel))
    if hit is not None and hit.kernel is kernel:
        return hit
    prog = decode(kernel)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(kernel)] = prog
    return prog


def decode(kernel: Kernel) -> Program:
    prog = Program(kernel, [], {}, {}, {})
    written = {ins.array.name for _, ins in kernel.instructions() if writes_memory(ins)}
    prog.read_only_arrays = frozenset(a.name for a in kernel.arrays
                                      if a.space == "global" and a.name not in written)
    site = 0
    for _, ins in kernel.instructions():
        if accesses_memory(ins):
            prog.sites[id(ins)] = site
            site += 1
    order = execution_order(kernel)
    prog.postdominators = postdominators(kernel)
    uses = _use_positions(kernel)
    linear_ids = _linear_id_instructions(kernel)
    needed = _needed_values(kernel, linear_ids)
    for label in order:
        block = kernel.block(label)
        seg = Segment(len(prog.segments), label, True, None)
        prog.first_segment[label] = seg.index
        prog.segments.append(seg)
        for pos, ins in enumerate(block.instrs):
            res = getattr(ins, "result", None)
            if _is_pure(ins) and res is not None and res.id not in needed:
                continue        # unused pure value: no step (never an obligation)
            if id(ins) in linear_ids:
                assert isinstance(ins, BinOp)   # linear_ids holds adds of b*B + t
                compiled = compile_linear_id(ins, prog)
            else:
                compiled = compile_instruction(ins, prog)
            if isinstance(compiled, BarrierPoint):
                assert isinstance(ins, Barrier)   # only a barrier compiles to a BarrierPoint
                prog.has_barriers = True
                seg = Segment(len(prog.segments), label, False, ins)
                prog.segments.append(seg)
                continue
            seg.steps.append(compiled)
            seg.frees.append(())
            seg.positions.append(pos)
        seg.term = compile_instruction(block.terminator, prog)
        for sg in prog.segments[prog.first_segment[label]:]:
            first = [block.instrs[p] for p in sg.positions[:1]]
            sg.loc = first[0].loc if first else (
                block.terminator.loc if sg.term is not None else None)
        for phi in block.phis:
            pc = compile_instruction(phi, prog)
            for pred, getter in pc.incoming.items():
                prog.phis.setdefault((pred, label), []).append((pc.result, pc.dtype, getter))
    _assign_frees(kernel, prog, uses)
    prog.bytes_per_lane = _bytes_per_lane(kernel)
    return prog


def execution_order(kernel: Kernel) -> list:
    """Reachable labels in a reverse postorder whose DFS visits loop-leaving
    successors first, so every block of a loop precedes the loop's exits:
    threads that leave a loop wait at its exit until the loop is finished."""
    depth = loop_depths(kernel)
    return reverse_postorder(kernel, successor_key=depth.__getitem__)


def _is_pure(ins) -> bool:
    """No effect but its result (cannot raise): safe to skip when unused
    (phis and terminators are never skipped this way)."""
    return isinstance(ins, Instr) and removable_if_unused(ins)


def _linear_id_instructions(kernel: Kernel) -> set:
    """ids of BinOps computing block_idx * block_dim + thread_idx (the
    frontend's lowering of vk.tid()): the simulator reads the lane's linear id
    instead (equal: the launch has fewer than 2**31 threads, so no wrap)."""
    defs = definitions(kernel, phis=False)

    def special(op, kind):
        d = defs.get(op.id) if isinstance(op, Value) else None
        return isinstance(d, Special) and d.kind == kind

    def block_times_dim(op):
        d = defs.get(op.id) if isinstance(op, Value) else None
        if not (isinstance(d, BinOp) and d.op == "mul"):
            return False
        return ((special(d.lhs, "block_idx") and special(d.rhs, "block_dim"))
                or (special(d.lhs, "block_dim") and special(d.rhs, "block_idx")))

    out = set()
    for _, ins in kernel.instructions():
        if isinstance(ins, BinOp) and ins.op == "add" and ins.result.type.name == "int32":
            if ((block_times_dim(ins.lhs) and special(ins.rhs, "thread_idx"))
                    or (block_times_dim(ins.rhs) and special(ins.lhs, "thread_idx"))):
                out.add(id(ins))
    return out


def _needed_values(kernel: Kernel, linear_ids: set) -> set:
    """Values some effectful instruction, terminator or phi (transitively) reads."""
    needed: set = set()
    changed = True
    while changed:
        changed = False
        for b in kernel.blocks:
            items = list(b.instrs) + [b.terminator] + list(b.phis)
            for ins in items:
                res = getattr(ins, "result", None)
                root = not _is_pure(ins) or isinstance(ins, Phi) or res is None
                if not root and res is not None and res.id not in needed:
                    continue
                if id(ins) in linear_ids:
                    continue
                for op in ins.operands():
                    if isinstance(op, Value) and op.id not in needed:
                        needed.add(op.id)
                        changed = True
    return needed


def _use_positions(kernel: Kernel) -> dict:
    """value id -> list of (block label, position); a phi operand counts as a
    use at the terminator (position len(instrs)) of its predecessor."""
    uses: dict = {}
    for b in kernel.blocks:
        for pos, ins in enumerate(b.instrs):
            for op in ins.operands():
                if isinstance(op, Value):
                    uses.setdefault(op.id, []).append((b.label, pos))
        for op in b.terminator.operands():
            if isinstance(op, Value):
                uses.setdefault(op.id, []).append((b.label, len(b.instrs)))
        for phi in b.phis:
            for pred, op in phi.incoming:
                if isinstance(op, Value):
                    pred_len = len(kernel.block(pred).instrs)
                    uses.setdefault(op.id, []).append((pred, pred_len))
    return uses


def _assign_frees(kernel: Kernel, prog: Program, uses: dict) -> None:
    phi_used = {op.id for b in kernel.blocks for phi in b.phis
                for _, op in phi.incoming if isinstance(op, Value)}
    for seg in prog.segments:
        block = kernel.block(seg.label)
        positions = seg.positions
        if not positions and seg.term is None:
            continue
        lo = positions[0] if positions else None
        frees: list[list[int]] = [[] for _ in positions]
        term_frees: list[int] = []
        for pos in positions:
            ins = block.instrs[pos]
            res = getattr(ins, "result", None)
            if res is None:
                continue
            where = uses.get(res.id, [])
            if any(lbl != seg.label for lbl, _ in where):
                continue
            if any(p < pos for _, p in where):
                continue  # only possible in a loop body that is its own latch
            last = max((p for _, p in where), default=pos)
            if seg.term is not None and last == len(block.instrs):
                term_frees.append(res.id)
            elif last in positions and (lo is None or last >= lo):
                frees[positions.index(last)].append(res.id)
            # a use in a later segment of the same block: keep the value
        seg.frees = [tuple(f) for f in frees]
        seg.term_frees = tuple(term_frees)
        # a Jump hands every lane of the segment to its phis, so values the
        # phis copy may stay compact too; a Branch splits the lanes first
        jump = seg.term is not None and seg.term.kind == "jump"
        seg.local_values = frozenset([v for f in frees for v in f] +
                                     [v for v in term_frees if jump or v not in phi_used])


def _bytes_per_lane(kernel: Kernel) -> int:
    """Every SSA value's size, summed (a bound: values also die early)."""
    total = 0
    for b in kernel.blocks:
        for ins in tuple(b.phis) + tuple(b.instrs):
            r = getattr(ins, "result", None)
            if r is not None:
                total += r.type.np_dtype.itemsize
    return total + 16                      # lane ids, masks, addresses


__all__ = ["Program", "Segment", "program_for", "decode", "Phi"]
