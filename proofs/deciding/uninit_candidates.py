"""The candidate writes of an `uninit` obligation (see
`proofs.deciding.uninit`): which stores and atomics of the read's shared
array may have written its element before the read, through which barrier,
and in which thread copy and iteration.

Invariant: every candidate has its own thread copy (bindings of two
candidates never constrain one copy), and a candidate's ordering argument
(`ordering_loops`, `previous_iteration`) holds on every path: a write it
names happens before the read whenever the copy executes it as bound.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.mir.facts import is_barrier, writes_memory
from verikern.mir.nodes import Atomic, Branch, Load, Return, Value
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.obligations import Point

#: Largest constant trip count of a barrier-free loop around a write that is
#: split into one candidate per iteration.
MAX_UNROLL = 8
#: Most candidates (writes x iterations) per obligation.
MAX_CANDIDATES = 12


@dataclass(frozen=True)
class Candidate:
    """One way element e may have been written: write site `site` by the
    thread copy `enc` (sharing the iterations of `loops` with A) before the
    barrier `barrier`, in the iteration of each own loop fixed by
    `iteration` ((phi variable, value))."""

    site: Point
    enc: ThreadEncoding
    loops: frozenset
    barrier: Point
    iteration: tuple = ()
    #: extra equalities binding the copy (a previous iteration's state)
    link: tuple = ()
    #: a condition on A under which the candidate applies (None: always)
    guard: object = None
    #: variables of the copy left free when synthesising witnesses
    free: tuple = ()
    #: facts about A true in every real execution (its first iteration of L
    #: starts from the loop's entry values)
    facts: tuple = ()
    #: the write's own block-strided range loop (`strided_loop`); then the
    #: candidate's witness term is the loop counter's value, not the thread
    stride: StridedLoop | None = None


@dataclass(frozen=True)
class StridedLoop:
    """A write's own loop `for j in range(thread_idx + offset, stop, step)`
    (a staging loop with a block-wide stride), as terms of the candidate's
    copy: `offset`, `step` and `stop` do not depend on the copy's thread
    index. The value v of the counter is the witness: thread
    (v - offset) mod step of the block runs the iteration with j == v, and
    that iteration is real when v >= offset, v < stop, step > 0 and that
    thread is in the block (`real_iteration`): the counter then takes
    offset + t, offset + t + step, ..., v, each below stop (no wrap before v)."""

    header: str
    counter: z3.BitVecRef
    signed: bool
    offset: z3.BitVecRef
    step: z3.BitVecRef
    stop: z3.BitVecRef


# ------------------------------------------------------------ ordering
def _succ_blocks(ctx: ProofContext, label: str, banned_edges) -> list[str]:
    return [s for s in dict.fromkeys(ctx.kernel.block(label).terminator.successors())
            if (label, s) not in banned_edges]


def _reaches(ctx: ProofContext, start: Point, target: Point, stop: Point | None,
             banned_edges, end_of_block: bool = False) -> bool:
    """Whether a path from just after `start` (position start[1] - 1 ends
    before the first instruction looked at) reaches `target` without passing
    `stop` and without taking `banned_edges`."""
    work, seen = [start], set()
    while work:
        lbl, pos = work.pop()
        if (lbl, pos) in seen:
            continue
        seen.add((lbl, pos))
        n = len(ctx.kernel.block(lbl).instrs)
        blocked = False
        if end_of_block and lbl == target[0] and stop is not None and stop[0] != lbl:
            return True
        for i in range(pos, n):
            if (lbl, i) == target:
                return True
            if stop is not None and (lbl, i) == stop:
                blocked = True
                break
        if blocked:
            continue
        if end_of_block and lbl == target[0]:
            return True
        for s in _succ_blocks(ctx, lbl, banned_edges):
            work.append((s, 0))
    return False


def ordering_loops(ctx: ProofContext, write: Point, read: Point) -> tuple[Point, frozenset] | None:
    """(X, the loops whose iteration a writer must share with the reader) for
    a barrier X through which `write` happens before `read` (see the module
    docstring), or None when no barrier orders them."""
    loops_of = ctx.shape.loop_of
    for b in ctx.kernel.blocks:
        for i, ins in enumerate(b.instrs):
            if not is_barrier(ins):
                continue
            xl = set(loops_of.get(b.label, []))
            if not (xl <= set(loops_of.get(read[0], [])) and xl <= set(loops_of.get(write[0], []))):
                continue
            banned = {(latch, h) for h in xl for latch in ctx.shape.loops[h].latches}
            inner = loops_of.get(b.label, [])
            start = (inner[-1], 0) if inner else (ctx.kernel.entry.label, 0)
            if _reaches(ctx, start, read, (b.label, i), banned):
                continue                      # S reachable in an iteration without X
            if _reaches(ctx, (b.label, i + 1), write, None, banned):
                continue                      # W may run after X in the iteration
            return (b.label, i), frozenset(xl)
    return None


# ------------------------------------------------------------ own loops of a write
def _unrolled_iterations(ctx: ProofContext, enc: ThreadEncoding, header: str):
    """For a barrier-free loop left only at its header, without `return`,
    whose header phis' values in iteration j (0-based) are constants and whose
    header test is decided by them: one binding per iteration, as a tuple of
    (phi variable, constant), at most MAX_UNROLL of them; None otherwise."""
    lp = ctx.shape.loops[header]
    body = ctx.shape.loop_bodies[header]
    if any(is_barrier(ins) for lbl in body for ins in ctx.kernel.block(lbl).instrs):
        return None
    for lbl in body:
        term = ctx.kernel.block(lbl).terminator
        if isinstance(term, Return):
            return None
        if lbl != header and any(s not in body for s in term.successors()):
            return None
    hterm = ctx.kernel.block(header).terminator
    if not isinstance(hterm, Branch):
        return None
    into = [s for s in (hterm.if_true, hterm.if_false) if s in body]
    if len(into) != 1 or (header, into[0]) not in enc.edges:
        return None
    phis = ctx.kernel.block(header).phis
    hv = enc.havoc.get(header)
    if hv is None or not phis:
        return None
    # constant entry values and constant steps
    values = []
    for phi in phis:
        entries = [v for src, v in phi.incoming if src not in lp.latches]
        latches = [v for src, v in phi.incoming if src in lp.latches]
        if len(entries) != 1 or not latches:
            return None
        x0 = z3.simplify(enc.term(entries[0]))
        if not z3.is_bv_value(x0):
            return None
        var = hv.phis[phi.result.id]
        step = None
        for v in latches:
            d = z3.simplify(enc.term(v) - var)
            if not z3.is_bv_value(d) or (step is not None and d.as_long() != step.as_long()):
                return None
            step = d
        if step is None:
            return None
        values.append((var, x0, step))
    enter = enc.edges[(header, into[0])]
    out: list = []
    for j in range(MAX_UNROLL + 1):
        binding = tuple((var, z3.simplify(x0 + j * step)) for var, x0, step in values)
        cond = z3.simplify(z3.substitute(enter, *binding, (hv.reach_var, z3.BoolVal(True))))
        if z3.is_false(cond):
            return tuple(out)
        if not z3.is_true(cond):
            return None
        out.append(binding)
    return None


def mentions(term: z3.ExprRef, var: z3.ExprRef) -> bool:
    """Whether the constant `var` occurs in `term`."""
    work, seen = [term], set()
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.eq(var):
            return True
        work.extend(t.children())
    return False


def _barrier_free_simple_loop(ctx: ProofContext, header: str) -> bool:
    """A loop with no barrier, no `return`, no inner loop, left only at its
    header: every iteration that enters the body reaches the latch."""
    body = ctx.shape.loop_bodies[header]
    for lbl in body:
        if ctx.shape.loop_of.get(lbl, [])[-1:] != [header]:
            return False
        if any(is_barrier(ins) for ins in ctx.kernel.block(lbl).instrs):
            return False
        term = ctx.kernel.block(lbl).terminator
        if isinstance(term, Return):
            return False
        if lbl != header and any(t not in body for t in term.successors()):
            return False
    return True


def strided_loop(ctx: ProofContext, enc: ThreadEncoding, header: str) -> StridedLoop | None:
    """The StridedLoop of the range loop at `header` in copy `enc`, when its
    counter starts at thread_idx plus a thread-independent offset and its step
    and stop are thread-independent, the loop is `_barrier_free_simple_loop`
    and the copy havocs it; None otherwise."""
    info = next((lp for lp in ctx.kernel.loops if lp.header == header), None)
    if info is None or info.range is None or not _barrier_free_simple_loop(ctx, header):
        return None
    rng = info.range
    hv = enc.havoc.get(header)
    ty = rng.counter.type
    if hv is None or not ty.is_int or rng.counter.id not in hv.phis:
        return None
    for opnd in (rng.step, rng.stop):
        if isinstance(opnd, Value) and ctx.shape.defined_in.get(opnd.id) in \
                ctx.shape.loop_bodies[header]:
            return None
    tid = enc.ident.thread_idx
    start, step, stop = enc.term(rng.start), enc.term(rng.step), enc.term(rng.stop)
    if start.size() != tid.size():
        return None
    offset = z3.simplify(start - tid)
    if any(mentions(t, tid) for t in (offset, step, stop)):
        return None
    return StridedLoop(header, hv.phis[rng.counter.id], ty.is_signed, offset, step, stop)


def real_iteration(stride: StridedLoop, v: z3.BitVecRef, block_dim: z3.BitVecRef):
    """(thread term, condition) for the counter value `v` (any width): the
    thread of the block that runs the iteration with j == v, and when that
    iteration is real (see StridedLoop). Computed two bits wider than every
    operand, so that no subtraction or comparison wraps."""
    width = max(v.size(), stride.counter.size(), block_dim.size()) + 2

    def ext(t, signed):
        return z3.SignExt(width - t.size(), t) if signed else z3.ZeroExt(width - t.size(), t)

    vv = ext(v, True)
    off, step, stop = (ext(t, stride.signed) for t in (stride.offset, stride.step, stride.stop))
    lo = z3.BitVecVal(-(1 << (stride.counter.size() - 1)) if stride.signed else 0, width)
    hi = z3.BitVecVal((1 << (stride.counter.size() - (1 if stride.signed else 0))) - 1, width)
    rel = vv - off
    thread = z3.URem(rel, step)
    ok = z3.And(vv >= lo, vv <= hi, rel >= 0, step > 0, vv < stop,
                thread < ext(block_dim, False))
    return thread, ok


def candidates(ctx: ProofContext, read: Point) -> tuple[list, list[Candidate]]:
    """(self writes, barrier candidates) of the shared load or atomic at `read`."""
    reader = ctx.kernel.block(read[0]).instrs[read[1]]
    assert isinstance(reader, (Load, Atomic))     # the sites of uninit obligations
    arr = reader.array
    selfs, cands = [], []
    serial = 0
    for b in ctx.kernel.blocks:
        for i, ins in enumerate(b.instrs):
            site = (b.label, i)
            if site == read or not writes_memory(ins) or ins.array.name != arr.name \
                    or ins.array.space != "shared":
                continue
            if site[0] not in ctx.A.reach:
                continue
            if ctx.runs_before(site, read) or not _reaches(ctx, (read[0], read[1] + 1), site,
                                                           None, frozenset()):
                selfs.append(site)
            order = ordering_loops(ctx, site, read)
            if order is None:
                continue
            barrier, loops = order
            own = [h for h in ctx.shape.loop_of.get(site[0], []) if h not in loops]
            iterations: list[tuple[int, ...]] = [()]
            probe = ctx.encoding(f"W{serial}_", loops)
            strided = len(own) == 1 and _unrolled_iterations(ctx, probe, own[0]) is None \
                and strided_loop(ctx, probe, own[0]) is not None
            if strided:
                enc = ctx.encoding(f"W{serial}_", loops)
                serial += 1
                cands.append(Candidate(site, enc, loops, barrier,
                                       stride=strided_loop(ctx, enc, own[0])))
                continue
            for h in own:
                its = _unrolled_iterations(ctx, probe, h)
                if its is None:
                    # a free iteration: provable only where it does not matter
                    iterations, own = [()], []
                    break
                iterations = [x + (j,) for x in iterations for j in range(len(its))]
            for its_j in iterations:
                # one copy per candidate: the bindings of two candidates must
                # never constrain the same thread copy (the query would then
                # rule out both at once and prove vacuously)
                enc = ctx.encoding(f"W{serial}_", loops)
                serial += 1
                binding: tuple = ()
                for h, j in zip(own, its_j):
                    unrolled = _unrolled_iterations(ctx, enc, h)
                    assert unrolled is not None      # the same loop as for `probe`
                    binding += unrolled[j]
                cands.append(Candidate(site, enc, loops, barrier, binding))
    for b in ctx.kernel.blocks:
        for i, ins in enumerate(b.instrs):
            site = (b.label, i)
            if site == read or not writes_memory(ins) or ins.array.name != arr.name \
                    or ins.array.space != "shared" or site[0] not in ctx.A.reach:
                continue
            prev = previous_iteration(ctx, site, read, serial)
            if prev is not None:
                serial += 1
                cands.append(prev)
    return selfs, cands[:MAX_CANDIDATES]


def previous_iteration(ctx: ProofContext, write: Point, read: Point,
                       serial: int) -> Candidate | None:
    """A candidate for a write in the iteration before the reader's of the
    innermost loop L around `write`: L has one latch and a barrier X that
    every iteration passes after `write` (no path from X reaches `write`
    without going around L); the read is in L, or after L with L's exit
    dominating it and no path back into L. The copy has its own iteration of
    L, bound to the previous one: its block-uniform header phis' latch values
    are A's phis, its iteration counter is A's minus one, and it took the
    back edge; A must not be in L's first iteration (guard)."""
    loops_of = ctx.shape.loop_of
    chain = loops_of.get(write[0], [])
    if not chain:
        return None
    h = chain[-1]
    lp = ctx.shape.loops[h]
    if len(lp.latches) != 1:
        return None
    latch = lp.latches[0]
    outer = [o for o in loops_of.get(h, []) if o != h]
    if not set(outer) <= set(loops_of.get(read[0], [])):
        return None
    body = ctx.shape.loop_bodies[h]
    if read[0] not in body:
        if lp.exit not in ctx.shape.dominators.get(read[0], ()) or \
                _reaches(ctx, (read[0], read[1] + 1), (h, 0), None, frozenset()):
            return None
    banned = {(lt, x) for x in [*outer, h] for lt in ctx.shape.loops[x].latches}
    end = (latch, len(ctx.kernel.block(latch).instrs))
    for lbl in body:
        if loops_of.get(lbl, [])[-1:] != [h]:
            continue
        for i, ins in enumerate(ctx.kernel.block(lbl).instrs):
            if not is_barrier(ins):
                continue
            if _reaches(ctx, (h, 0), end, (lbl, i), banned, end_of_block=True):
                continue                  # an iteration may skip X
            if _reaches(ctx, (lbl, i + 1), write, None, banned):
                continue                  # the write may come after X
            A = ctx.A
            enc = ctx.encoding(f"P{serial}_", frozenset(outer))
            hv_a, hv_b = A.havoc.get(h), enc.havoc.get(h)
            if hv_a is None or hv_b is None or (latch, h) not in enc.edges:
                return None
            link = [enc.edges[(latch, h)],
                    hv_b.phis["<iteration>"] + 1 == hv_a.phis["<iteration>"]]
            for phi in ctx.kernel.block(h).phis:
                if phi.result.id in ctx.varying:
                    continue
                back = dict(phi.incoming).get(latch)
                if back is None:
                    return None
                link.append(A.val[phi.result.id] == enc.term(back))
            guard = hv_a.phis["<iteration>"] != 0
            first = []
            for phi in ctx.kernel.block(h).phis:
                entry = [v for src, v in phi.incoming if src not in lp.latches]
                if len(entry) == 1:
                    first.append(A.val[phi.result.id] == A.term(entry[0]))
            facts = (z3.Implies(z3.And(hv_a.reach_var, hv_a.phis["<iteration>"] == 0),
                                z3.And(*first)),) if first else ()
            return Candidate(write, enc, frozenset(outer), (lbl, i), (), tuple(link), guard,
                             (*hv_b.phis.values(), hv_b.reach_var), facts)
    return None


def barrier_reach_exact(ctx: ProofContext, cand: Candidate) -> list | None:
    """Facts under which the copy's `reach` of the candidate's barrier X is
    the real "the witness reaches X", or None when there are none: the copy
    is bound to no iteration of its own (nor to a previous iteration), and
    every loop it does not share with A whose header leads to X is taken in
    its leaving iteration -- a choice of iterations the witness really makes
    when it reaches X (it left every loop it entered on the way; if it never
    leaves one, it never reaches X, nor A, which waits there, the read).
    Only then may the divergence assumption "the witness reaches X" be
    stated on the copy: the reach of code after a havocked loop is false in
    the loop's other iterations."""
    if cand.link or cand.iteration or cand.stride is not None:
        return None
    x = cand.barrier
    out = []
    for h in ctx.shape.loops:
        if h in cand.loops or not _reaches(ctx, (h, 0), x, None, frozenset()):
            continue
        if x[0] in ctx.shape.loop_bodies[h]:
            return None
        hv = cand.enc.havoc.get(h)
        if hv is None:
            return None
        out.append(z3.Implies(hv.reach_var, cand.enc.leaving_condition(h)))
    return out
