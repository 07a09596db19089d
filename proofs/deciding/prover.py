"""Decide every proof obligation of a MIR kernel with z3: the entry point
(`prove_kernel`) and one decider per obligation kind (`DECIDERS`), each
stating its obligation's query (the negation of the property at its site);
proofs.deciding.prover_solve asks a query under the proof context's facts and
reads a counterexample off its model, proofs.deciding.prover_messages words
the verdict.

Invariant: an obligation is PROVED only when z3 answered `unsat` to its
negation under the sound facts of `ProofContext`; `sat` gives FAILED with a
counterexample read from the model (`Counterexample.abstracted` when the violating
path went through an abstraction: a havocked loop, a float, or memory the
kernel writes, so that only a replay can confirm it); anything else (an
exhausted solver budget, `unknown`, an unsupported construct) gives UNKNOWN with the reason.
"""
from __future__ import annotations

import time
from typing import Any
from dataclasses import replace

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.encoders.smt.geometry import abstraction_geometry_facts
from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES
from verikern.encoders.smt.terms import unseen_children
from verikern.encoders.smt.semantics import UnsupportedConstruct, widen
from verikern.mir import facts
from verikern.mir.nodes import Assert, Branch, Const, Kernel, Return
from verikern.mir.types import I32

from verikern.proofs.deciding.budget import (
    FLOOR_RUN, exhausted_reason, obligation_floor, own_context, total_exhausted, total_exhausted_reason, work_left,
)
from verikern.proofs.deciding.covered import CoverKey, CoveringAccesses, covered_obligation
from verikern.proofs.deciding.crosscheck import apply_cross_checks
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import (  # noqa: F401  (ObligationSpec, Point re-exported)
    Obligation, ObligationKind, ObligationSpec, Point, Status, enumerate_obligations,
    obligation_id,
)
from verikern.proofs.deciding.invariants import Candidate, HintPhase
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.prover_messages import (
    SSA, SYMBOLS, failed_obligation, index_name, operand_name, proved_obligation, search_local,
    undecided_obligation, who,
)
from verikern.proofs.deciding.prover_solve import counterexample, signed_value, solve
from verikern.proofs.deciding.explain import element_text, wrap_notes
from verikern.proofs.deciding.source_text import dividend_text, divisor_text
from verikern.proofs.deciding.solving import ABSTRACT_FIRST_RLIMIT, check
from verikern.proofs.deciding import uninit


# ------------------------------------------------------------ entry point
@own_context()
def prove_kernel(kernel: Kernel, *, dims: tuple[int, ...] | None = None,
                 block_dim: int | None = None,
                 budget: SolverSession | None = None,
                 max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES) -> tuple[Obligation, ...]:
    """Decide every obligation of `kernel` (see the module docstring) within
    `budget` (a default `SolverSession` when None), assuming every array holds
    at most `max_array_bytes` bytes. Called on its own (not inside a proof in
    progress), it runs in a z3 context of its own (budget.own_context): its
    queries cost the same z3 units whatever the process did before."""
    specs = enumerate_obligations(kernel)
    if total_exhausted():            # the kernel's total is spent: nothing is encoded or decided
        return tuple(_unknown(s, total_exhausted_reason(0, len(specs))) for s in specs)
    try:
        ctx = ProofContext(kernel, dims, block_dim, budget, max_array_bytes=max_array_bytes)
    except UnsupportedConstruct as e:
        if total_exhausted():         # its checks ran out of the kernel's total: say which budget
            return tuple(_unknown(s, total_exhausted_reason(0, len(specs))) for s in specs)
        return tuple(_unknown(s, f"unsupported: {e}") for s in specs)
    except z3.Z3Exception as e:
        return tuple(_unknown(s, f"solver error: {e}") for s in specs)
    except ValueError as e:          # a launch fixed outside the hardware limits
        return tuple(_unknown(s, f"bad launch: {e}") for s in specs)
    except Exception as e:           # never crash, never prove: report it
        return tuple(_unknown(s, f"internal prover error ({type(e).__name__}: {e})")
                     for s in specs)
    out = []
    checks = ctx.budget.cross_checks
    shared = list(checks)             # admissibility, invariants: every verdict rests on them
    spent_at = None                   # the obligations decided before the kernel's own work was spent
    total_at = None                   # ... before the kernel's total was spent (budget.kernel_total)
    undecided_run = 0                 # the obligations in a row undecided on their floor
    covers = CoveringAccesses(kernel, ctx.runs_before)
    # by CoveringAccesses.key: what a repeat may rest on, and the records of its queries
    decided: dict[CoverKey, tuple[Obligation, tuple]] = {}
    for n, spec in enumerate(specs):
        ctx.budget.topic = obligation_id(spec) + "."
        mark, key, base = ctx.budget.mark(), covers.key(spec), covers.covering(spec)
        ob = covered_obligation(spec, base, decided, _instr(ctx, spec.site))
        if ob is not None:            # its proof is an earlier access's (proofs.deciding.covered)
            if ob.status is Status.PROVED and base is not None:   # it rests on that one's queries
                ctx.budget.reuse(decided[base][1])
                ob = apply_cross_checks(ob, shared + ctx.budget.records_since(mark)[0])
            out.append(ob)
            if key is not None:
                decided[key] = (ob, ctx.budget.records_since(mark))
            continue
        if total_at is None and total_exhausted():
            total_at = n
        if total_at is not None:      # a hard bound: no floor, nothing more decided
            out.append(_unknown(spec, total_exhausted_reason(total_at, len(specs))))
            continue
        left = work_left()
        if left is not None and left <= 0 and spent_at is None:
            spent_at = n
        if spent_at is not None and undecided_run >= FLOOR_RUN:    # it cannot end proved: no more floors
            out.append(_unknown(spec, exhausted_reason(spent_at, len(specs), floor_run=undecided_run)))
            continue
        obligation_floor(ctx.budget.per_check)    # each one is still tried, on its floor of work
        t0 = time.perf_counter()
        first = len(checks)
        try:
            ob = DECIDERS[spec.kind](ctx, spec)
        except UnsupportedConstruct as e:
            ob = _unknown(spec, f"unsupported: {e}")
        except z3.Z3Exception as e:
            ob = _unknown(spec, f"solver error: {e}")
        except Exception as e:       # never crash, never prove: report it
            ob = _unknown(spec, f"internal prover error ({type(e).__name__}: {e})")
        ob = apply_cross_checks(ob, shared + checks[first:])
        ob = ctx.content.explain(ob)
        if ob.status is Status.UNKNOWN and ob.counterexample is None \
                and "budget was exhausted" in (ob.reason or ""):
            if total_exhausted():     # the total ran out in this obligation's checks
                total_at = n
                ob = _unknown(spec, total_exhausted_reason(n, len(specs)))
            elif spent_at is not None:      # undecided on its floor
                ob = _unknown(spec, exhausted_reason(spent_at, len(specs)))
                undecided_run += 1
        elif spent_at is not None:
            undecided_run = 0
        out.append(replace(ob, seconds=time.perf_counter() - t0))
        if key is not None:
            decided[key] = (ob, ctx.budget.records_since(mark))
    return tuple(out)


def _unknown(spec: ObligationSpec, reason: str) -> Obligation:
    return Obligation(spec.kind, spec.loc, Status.UNKNOWN,
                      f"{spec.kind.value} at line {spec.loc.line} undecided: {reason}",
                      reason=reason, other_loc=spec.other_loc, spec=spec)


def _instr(ctx: ProofContext, site: Point):
    return ctx.kernel.block(site[0]).instrs[site[1]]


def _reach(enc: ThreadEncoding, site: Point) -> z3.BoolRef:
    return enc.reach.get(site[0], z3.BoolVal(False))


def _abstract_ops(enc: ThreadEncoding, site: Point, ops) -> bool:
    return enc.reach_abstract.get(site[0], False) or any(enc.is_abstract(o) for o in ops)


# ------------------------------------------------------------ deciders
def _index_and_size(ctx: ProofContext, enc: ThreadEncoding, ins, k: int) -> tuple:
    """Index `k` of access `ins` (in copy `enc`) and its dimension, widened."""
    idx_op = ins.indices[k]
    return widen(enc.term(idx_op), idx_op.type), widen(ctx.launch.shape(ins.array, k), I32)


def _out_of_bounds(ctx: ProofContext, enc: ThreadEncoding, ins, k: int) -> z3.BoolRef:
    """Index `k` of access `ins` (in copy `enc`) is outside its dimension."""
    idx, size = _index_and_size(ctx, enc, ins, k)
    return z3.Or(idx < 0, idx >= size)


def _every_dim_in_bounds(ctx: ProofContext, spec: ObligationSpec) -> bool:
    """Every index of the access at `spec.site` is in bounds, by one query
    under the abstraction (its violations joined: unsat proves each), asked
    once per multi-dimensional access within ABSTRACT_FIRST_RLIMIT; False
    when that query does not prove it (each dimension is then decided
    alone, with its own counterexample). A later dimension proved by it
    records that query again as its own (`SolverSession.reuse`)."""
    known = ctx.in_bounds_sites.get(spec.site)
    if known is not None:
        proved, records = known
        if proved:
            ctx.budget.reuse(records)
        return proved
    ins, enc = _instr(ctx, spec.site), ctx.A
    proved, mark = False, ctx.budget.mark()
    if ins.array.ndim > 1:
        query = [_reach(enc, spec.site),
                 z3.Or(*[_out_of_bounds(ctx, enc, ins, k) for k in range(ins.array.ndim)])]
        base = ctx.facts([enc], [spec.site]) + query
        abstract = ctx.abstract(base + abstraction_geometry_facts(ctx.launch, [enc]))
        res, _, _ = check(ctx.budget, abstract, ABSTRACT_FIRST_RLIMIT, "every-dim-abstract")
        proved = res == z3.unsat
    ctx.in_bounds_sites[spec.site] = (proved, ctx.budget.records_since(mark))
    return proved


def decide_bounds(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    ins = _instr(ctx, spec.site)
    enc = ctx.A
    k = spec.dim
    arr = ins.array
    idx_op = ins.indices[k]
    idx, size = _index_and_size(ctx, enc, ins, k)
    what = f"the index into dimension {k} of {arr.name} at line {spec.loc.line}"
    if _every_dim_in_bounds(ctx, spec):
        return proved_obligation(spec, f"{what} is always in bounds")
    # the simulator checks dimensions in order: prefer models whose earlier
    # dimensions are in bounds, so that replay reaches this one
    earlier = [ctx.within(arr, [widen(enc.term(ins.indices[j]), ins.indices[j].type)
                                 for j in range(k)])] if k else []
    ans = solve(ctx, [enc], [_reach(enc, spec.site), z3.Or(idx < 0, idx >= size)], [spec.site],
                prefer=earlier)
    if ans.status == Status.PROVED:
        return proved_obligation(spec, f"{what} is always in bounds")
    if ans.status == Status.UNKNOWN:
        return undecided_obligation(spec, f"{what} undecided", ans)
    m = ans.model
    iv, sv = signed_value(m, idx), signed_value(m, size)
    wraps = wrap_notes(ctx.defs, enc, m, idx_op, lambda o: operand_name(o, ctx))
    cex = counterexample(ctx, m, [enc], _abstract_ops(enc, spec.site, [idx_op]),
                         index=iv, dim=k, array=arr.name, shape=sv,
                         **({"wraps": wraps} if wraps else {}))
    shown = index_name(ctx, spec, idx_op)
    value = "" if isinstance(idx_op, Const) else f"{shown} = {iv} but "
    why = "".join(f"; {w}" for w in wraps)
    search = search_local(idx_op, ctx)    # a read of wp.lower_bound's own search
    of = f" of the binary search of {search[1]}" if search is not None and search[0] != "lower" else ""
    return failed_obligation(spec, f"index {arr.name}[{'..., ' * (k > 0)}{shown}]{of} is out of "
                         f"bounds: {value}{arr.name}.shape[{k}] = {sv}{why} "
                         f"({who(cex)})", cex)


def decide_div_zero(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    """The division faults in no thread: its divisor is never zero, and on
    int32/int64 it never divides INT_MIN by -1 (x86's idiv traps there, so
    Warp's CPU run dies of SIGFPE; C++ leaves it undefined)."""
    ins = _instr(ctx, spec.site)
    enc = ctx.A
    rhs = enc.term(ins.rhs)
    op = {"div": "division", "floordiv": "floor division", "mod": "modulo"}[ins.op]
    what = f"{op} at line {spec.loc.line}"
    divisor = operand_name(ins.rhs, ctx)
    if SSA.search(divisor):
        divisor = divisor_text(ctx.kernel, ins) or divisor
    if facts.may_divide_by_zero(ins):
        ans = solve(ctx, [enc], [_reach(enc, spec.site), rhs == 0], [spec.site])
        if ans.status == Status.UNKNOWN:
            return undecided_obligation(spec, f"{what} undecided", ans)
        if ans.status != Status.PROVED:
            cex = counterexample(ctx, ans.model, [enc], _abstract_ops(enc, spec.site, [ins.rhs]),
                                 divisor=divisor)
            return failed_obligation(spec, f"{op} by zero: divisor {divisor} = 0 ({who(cex)})", cex)
    if not facts.may_overflow(ins):
        return proved_obligation(spec, f"the divisor of the {what} is never zero")
    t = ins.result.type
    ans = solve(ctx, [enc], [_reach(enc, spec.site), enc.term(ins.lhs) == t.min_value, rhs == -1],
                [spec.site])
    if ans.status == Status.PROVED:
        return proved_obligation(spec, f"the divisor of the {what} is never zero and it never "
                                       f"divides "
                             f"INT_MIN by -1")
    if ans.status == Status.UNKNOWN:
        return undecided_obligation(spec, f"{what} undecided", ans)
    dividend = operand_name(ins.lhs, ctx)
    if SSA.search(dividend):
        dividend = dividend_text(ctx.kernel, ins) or dividend
    cex = counterexample(ctx, ans.model, [enc],
                         _abstract_ops(enc, spec.site, [ins.lhs, ins.rhs]), fault="overflow",
                         dividend=dividend, dividend_value=t.min_value, divisor=divisor,
                         divisor_value=-1)
    by = "" if isinstance(ins.rhs, Const) else f" and divisor {divisor} = -1"
    return failed_obligation(spec, f"{op} overflow: INT_MIN {SYMBOLS[ins.op]} -1 does not fit "
                                   f"{t.name}: "
                         f"dividend {dividend} = {t.min_value}{by} ({who(cex)})", cex)


#: How the frontend's `unassigned` checks end their message (lower/expressions.py).
UNASSIGNED_SUFFIX = " is read before it is assigned"


def decide_assert(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    ins: Assert = _instr(ctx, spec.site)
    enc = ctx.A
    ans = solve(ctx, [enc], [_reach(enc, spec.site), z3.Not(enc.term(ins.cond))],
                [spec.site])
    label = f"assertion at line {spec.loc.line}" + (f" ({ins.message})" if ins.message else "")
    if spec.kind is ObligationKind.UNASSIGNED:     # the MIR message: "variable 'v' is read before ..."
        subject = ins.message.removesuffix(UNASSIGNED_SUFFIX)
        if ans.status == Status.PROVED:
            return proved_obligation(spec, f"every path to line {spec.loc.line} assigns {subject}")
        label = f"the read of {subject} at line {spec.loc.line}"
        if ans.status != Status.UNKNOWN:
            cex = counterexample(ctx, ans.model, [enc], _abstract_ops(enc, spec.site, [ins.cond]))
            return failed_obligation(spec, f"{ins.message} ({who(cex)})", cex)
    if ans.status == Status.PROVED:
        return proved_obligation(spec, f"{label} always holds")
    if ans.status == Status.UNKNOWN:
        return undecided_obligation(spec, f"{label} undecided", ans)
    cex = counterexample(ctx, ans.model, [enc], _abstract_ops(enc, spec.site, [ins.cond]))
    return failed_obligation(spec, f"{label} fails ({who(cex)})", cex)


def decide_invariant(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    ins: Assert = _instr(ctx, spec.site)
    label = f"invariant at line {spec.loc.line}"
    for cs in ctx.houdini.invariants.values():
        if any(c.kind == "hint" and c.hint is ins for c in cs):
            return proved_obligation(spec, f"{label} holds on loop entry and is preserved by "
                                           f"every iteration")
    failure = ctx.houdini.hint_failures.get(ins)
    if failure is None:
        reason = "the invariant's loop is not known to the prover"
        return Obligation(spec.kind, spec.loc, Status.UNKNOWN, f"{label} undecided: {reason}",
                          reason=reason, spec=spec)
    phase, model = failure.phase, failure.model
    if phase in (HintPhase.UNSUPPORTED, HintPhase.UNDECIDED) or model is None:
        reason = failure.detail if phase is HintPhase.UNSUPPORTED else "solver could not decide it"
        return Obligation(spec.kind, spec.loc, Status.UNKNOWN, f"{label} undecided: {reason}",
                          reason=reason, spec=spec)
    enc = ctx.A
    header = next(h for h, hv in enc.havoc.items() if spec.site[0] in
                  next(lp.body for lp in ctx.kernel.loops if lp.header == h)
                  and _loop_first(ctx, h, spec.site))
    abstracted = phase is HintPhase.CONSECUTION or \
        _initiation_abstract(enc, header, ins, spec.site, failure.detail)
    cex = counterexample(ctx, model, [enc], abstracted, phase=phase.value)
    if phase is HintPhase.INITIATION:
        msg = f"{label} is false when the loop is entered ({who(cex)})"
    else:
        msg = f"{label} is not preserved by an iteration of its loop ({who(cex)})"
    return failed_obligation(spec, msg, cex)


def _initiation_abstract(enc: ThreadEncoding, header: str, hint: Assert, site: Point,
                         edge_src: str) -> bool:
    """Whether a model refuting `hint` on entry to the loop at `header` (along
    the entry edge from `edge_src`; any entry edge when that is not one) may
    be spurious. It is exact only when the entry edge is exact and the hint,
    with the loop's phis replaced by their entry values, reads no abstract
    variable: no value loaded from shared or written memory, no atomic, no
    float, no havocked phi or iteration of another loop (an enclosing or
    earlier loop's arbitrary iteration). The loop's own `in loop` flag is
    exact there (it equals the entry's reach)."""
    hv = enc.havoc[header]
    edges = [e for e in hv.entry_edges if e[0] == edge_src] or list(hv.entry_edges)
    leaves = set()
    for vid in enc.abstract:
        term = enc.val.get(vid)
        if term is not None and z3.is_const(term) and \
                term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            leaves.add(term.get_id())
    for other in enc.havoc.values():
        leaves.update(v.get_id() for v in other.phis.values())
        if other.header != header:
            leaves.add(other.reach_var.get_id())
    phis = enc.kernel.block(header).phis
    for edge in edges:
        if enc.reach_abstract.get(edge[0], False) or enc.edge_abstract.get(edge, False):
            return True
        state = {phi.result.id: enc.term(dict(phi.incoming)[edge[0]]) for phi in phis
                 if edge[0] in dict(phi.incoming)}
        built = Candidate(header, "hint", hint=hint, hint_site=site).build(enc, state)
        if _reads_any(z3.And(built, enc.edges.get(edge, z3.BoolVal(True))), leaves):
            return True
    return False


def _reads_any(formula: z3.ExprRef, leaves: set[int]) -> bool:
    seen, stack = set(), [formula]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if e.get_id() in leaves:
            return True
        stack.extend(unseen_children(e, seen))
    return False


def _loop_first(ctx, header, site) -> bool:
    lp = next(lp for lp in ctx.kernel.loops if lp.header == header)
    return any(a is _instr(ctx, site) for a in lp.invariants)


def decide_race(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    other, other_loc = spec.other, spec.other_loc
    assert other is not None and other_loc is not None   # a race names its second access
    ins1, ins2 = _instr(ctx, spec.site), _instr(ctx, other)
    arr = ins1.array
    A = ctx.A
    what = (f"accesses to {arr.name} at lines {spec.loc.line} and {other_loc.line}"
            if spec.site != other else f"access to {arr.name} at line {spec.loc.line}")
    apart = next(((a, b) for a, b in zip(ins1.indices, ins2.indices) if isinstance(a, Const)
                  and isinstance(b, Const) and a.type == b.type and a.value != b.value), None)
    if apart is not None:        # two different constant indices: never the same element
        return proved_obligation(spec, f"no two threads race on the {what}: they never touch the same "
                                       f"element (index {apart[0].value} against {apart[1].value})")
    checks: list[tuple[str, Any, Any]] = []   # (mode, shared loops, interval starts)
    if arr.space == "global":
        checks.append(("blocks", None, None))
    starts = ctx.intervals.common_starts(spec.site, other)
    if starts:
        shared = ctx.intervals.same_iteration_loops(spec.site, other, starts)
        checks.append(("same", shared, starts))
    undecided = None
    for mode, shared, starts in checks:
        B = ctx.pair(shared if mode == "same" else None)
        i1, i2 = A.index_terms(ins1), B.index_terms(ins2)
        q = [_reach(A, spec.site), _reach(B, other)]
        q += [a == b for a, b in zip(i1, i2)]
        if mode == "blocks":
            q.append(A.ident.block_idx != B.ident.block_idx)
        else:
            q += [A.ident.block_idx == B.ident.block_idx,
                  A.ident.thread_idx != B.ident.thread_idx]
            paths, path_blocks = _same_interval(ctx, A, B, spec.site, other, starts)
            q.append(paths)
        ans = solve(ctx, [A, B], q, [spec.site, other])
        if ans.status == Status.FAILED and mode == "same" and ctx.intervals.spent:
            # a spent map took every pair as possibly concurrent: not believed
            ans = replace(ans, status=Status.UNKNOWN, model=None,
                          reason=ctx.intervals.spent_reason)
        if ans.status == Status.UNKNOWN:
            undecided = ans
            continue
        if ans.status == Status.FAILED:
            m = ans.model
            abstracted = _abstract_ops(A, spec.site, ins1.indices) or \
                _abstract_ops(B, other, ins2.indices) or \
                (mode == "same" and (ctx.intervals.through_barrier_loop(spec.site, other,
                                                                        starts)
                                     or any(e.reach_abstract.get(b, False)
                                            for e in (A, B) for b in path_blocks)))
            elem = [signed_value(m, t) for t in i1]
            el = element_text(arr, elem)
            cex = counterexample(ctx, m, [A, B], abstracted, index=elem, array=arr.name,
                                 lines=[spec.loc.line, other_loc.line], element=el)
            (b1, t1), (b2, t2) = cex.threads
            writer = t1 if facts.writes_memory(ins1) else t2
            writer_b = b1 if facts.writes_memory(ins1) else b2
            if mode == "same":
                msg = (f"threads {t1} and {t2} of block {b1} both access {el} "
                       f"{ctx.intervals.describe(starts)} (lines {spec.loc.line} and "
                       f"{other_loc.line}); thread {writer} writes")
            else:
                msg = (f"thread {t1} of block {b1} and thread {t2} of block {b2} both access "
                       f"{el} (lines {spec.loc.line} and {other_loc.line}); thread "
                       f"{writer} of block {writer_b} writes")
            return failed_obligation(spec, msg, cex)
    if undecided is not None:
        return undecided_obligation(spec, f"race between {what} undecided", undecided)
    return proved_obligation(spec, f"no two threads race on the {what}")


def _same_interval(ctx: ProofContext, A: ThreadEncoding, B: ThreadEncoding, s1: Point,
                   s2: Point, starts) -> tuple[z3.BoolRef, frozenset[str]]:
    """Threads A (at s1) and B (at s2) of one block run their accesses in one
    barrier interval: for some common start, each ran the start barrier (when
    it lies outside every loop) and neither ran a barrier outside every loop
    between that start and its site (`IntervalMap.path_blocks`). This is what
    ties the pairing to the branches both threads took: a block-uniform
    condition has one value for both, so a barrier inside a uniform `if`
    (the `if block_dim >= 512: ...; sync` ladder of a reduction, phases
    switched by a flag) separates the accesses on either side of it. Also the
    blocks the formula reads (their reach decides whether a model is exact)."""
    disjuncts, used = [], set()
    for st in starts:
        conj = []
        for enc, site in ((A, s1), (B, s2)):
            ran, skipped = ctx.intervals.path_blocks(st.point, site)
            if ran is not None:
                conj.append(enc.reach.get(ran, z3.BoolVal(False)))
                used.add(ran)
            for lbl in skipped:
                conj.append(z3.Not(enc.reach.get(lbl, z3.BoolVal(False))))
                used.add(lbl)
        disjuncts.append(z3.And(*conj) if conj else z3.BoolVal(True))
    return z3.Or(*disjuncts) if disjuncts else z3.BoolVal(False), frozenset(used)


def decide_divergence(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    A = ctx.A
    label = spec.site[0]
    loops = [lp for lp in ctx.kernel.loops if label in lp.body]
    B = ctx.pair(frozenset(lp.header for lp in loops))
    same_block = [A.ident.block_idx == B.ident.block_idx,
                  A.ident.thread_idx != B.ident.thread_idx]
    line = spec.loc.line
    # (kind, query, (loop, terminator, block) for "exit" and "return")
    queries: list[tuple[str, list, tuple[Any, Any, str] | None]] = [
        ("reach", [_reach(A, spec.site), z3.Not(_reach(B, spec.site))], None)]
    for lp in loops:
        hv_a, hv_b = A.havoc.get(lp.header), B.havoc.get(lp.header)
        if hv_a is None or hv_b is None:
            continue
        both_in = [hv_a.reach_var, hv_b.reach_var]
        for blk in lp.body:
            t = ctx.kernel.block(blk).terminator
            if blk not in A.reach:
                continue
            if isinstance(t, Return):
                queries.append(("return", both_in + [z3.Xor(A.reach[blk], B.reach[blk])],
                                (lp, t, blk)))
                continue
            for succ in dict.fromkeys(t.successors()):   # ordered: a stable query order
                if succ in lp.body or (blk, succ) not in A.edges:
                    continue
                # in the same iteration, one thread leaves along this edge and
                # the other does not (the edge includes the path to it)
                queries.append(("exit", both_in + [z3.Xor(A.edges[(blk, succ)],
                                                          B.edges[(blk, succ)])],
                                (lp, t, blk)))
    undecided = None
    for kind, q, info in queries:
        ans = solve(ctx, [A, B], same_block + q, [spec.site, spec.site])
        if ans.status == Status.UNKNOWN:
            undecided = ans
            continue
        if ans.status == Status.PROVED:
            continue
        abstracted = A.reach_abstract.get(label, False) or B.reach_abstract.get(label, False)
        if info is not None:
            abstracted = abstracted or A.reach_abstract.get(info[2], False) or \
                (isinstance(info[1], Branch) and (A.is_abstract(info[1].cond)
                                                  or B.is_abstract(info[1].cond)))
        cex = counterexample(ctx, ans.model, [A, B], abstracted, barrier_line=line)
        (b, t1), (_, t2) = cex.threads
        if kind == "reach":
            msg = (f"thread {t1} of block {b} reaches the barrier at line {line} but thread "
                   f"{t2} of the same block does not (block_dim {cex.block_dim})")
        elif kind == "exit":
            assert info is not None
            msg = (f"the loop at line {info[0].loc.line} contains the barrier at line {line} "
                   f"but only one of threads {t1} and {t2} of block {b} leaves it at line "
                   f"{info[1].loc.line} in the same iteration (block_dim {cex.block_dim})")
        else:
            assert info is not None
            msg = (f"only one of threads {t1} and {t2} of block {b} returns at line "
                   f"{info[1].loc.line} inside the loop with the barrier at line {line}")
        return failed_obligation(spec, msg, cex)
    if undecided is not None:
        return undecided_obligation(spec, f"barrier at line {line} undecided", undecided)
    return proved_obligation(spec, f"every thread of a block reaches the barrier at line {line} "
                                   f"together")


def decide_uninit(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    return uninit.decide(ctx, spec, solve, counterexample,
                         (proved_obligation, failed_obligation, undecided_obligation))


DECIDERS = {
    ObligationKind.BOUNDS: decide_bounds,
    ObligationKind.RACE: decide_race,
    ObligationKind.DIVERGENCE: decide_divergence,
    ObligationKind.ASSERT: decide_assert,
    ObligationKind.INVARIANT: decide_invariant,
    ObligationKind.DIV_ZERO: decide_div_zero,
    ObligationKind.UNINIT: decide_uninit,
    ObligationKind.UNASSIGNED: decide_assert,
}

__all__ = ["prove_kernel", "enumerate_obligations", "ObligationSpec", "DECIDERS"]
