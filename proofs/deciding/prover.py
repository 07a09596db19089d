"""Decide every proof obligation of a MIR kernel with z3.

Invariant: an obligation is PROVED only when z3 answered `unsat` to its
negation under the sound facts of `ProofContext`; `sat` gives FAILED with a
counterexample read from the model (`Counterexample.abstracted` when the violating
path went through an abstraction: a havocked loop, a float, or memory the
kernel writes, so that only a replay can confirm it); anything else (an
exhausted solver budget, `unknown`, an unsupported construct) gives UNKNOWN with the reason.
"""
from __future__ import annotations

import re
import time
from typing import Any
from dataclasses import replace

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.encoders.smt.geometry import abstraction_geometry_facts
from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES, SMALL_MODEL_TIERS
from verikern.encoders.smt.terms import unseen_children
from verikern.encoders.smt.semantics import (
    UnsupportedConstruct, bits_to_float, model_int, widen,
)
from verikern.mir import facts
from verikern.mir.nodes import (
    ArrayRef, Assert, BinOp, Branch, Cast, Const, Kernel, Load, Return, ShapeOf,
    Special,
)
from verikern.mir.ops import symbols
from verikern.mir.types import I32

from verikern.proofs.deciding.budget import (
    MEGA, exhausted_reason, obligation_floor, own_context, work_left,
)
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.crosscheck import apply_cross_checks
from verikern.proofs.obligations import (  # noqa: F401  (ObligationSpec, Point re-exported)
    Counterexample, Obligation, ObligationKind, ObligationSpec, Point, Status, enumerate_obligations,
    obligation_id,
)
from verikern.proofs.deciding.invariants import Candidate, HintPhase
from verikern.proofs.deciding.prover_context import EARLY_PROBE_RLIMIT, ProofContext
from verikern.proofs.deciding.explain import element_text, wrap_notes
from verikern.proofs.deciding.source_text import (
    dividend_text, divisor_text, index_text, operand_text,
)
from verikern.proofs.deciding.solving import (
    ABSTRACT_FIRST_RLIMIT, Answer, check, decide, first_model, satisfies,
)
from verikern.proofs.deciding import uninit



# ------------------------------------------------------------ enumeration
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
    try:
        ctx = ProofContext(kernel, dims, block_dim, budget, max_array_bytes=max_array_bytes)
    except UnsupportedConstruct as e:
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
    for n, spec in enumerate(specs):
        left = work_left()
        if left is not None and left <= 0 and spent_at is None:
            spent_at = n
        obligation_floor(ctx.budget.per_check)    # each one is still tried, on its floor of work
        t0 = time.perf_counter()
        ctx.budget.topic = obligation_id(spec) + "."
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
        if spent_at is not None and ob.status is Status.UNKNOWN and ob.counterexample is None \
                and "budget was exhausted" in (ob.reason or ""):      # undecided on its floor
            ob = _unknown(spec, exhausted_reason(spent_at, len(specs)))
        out.append(replace(ob, seconds=time.perf_counter() - t0))
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


# ------------------------------------------------------------ solving
#: Work for the search of a smaller model in one tier once a counterexample
#: exists (z3 resource units); the last tier gets the check's whole budget.
SMALL_TIER_RLIMIT = 3 * MEGA // 2
#: Work of the quick check under the nonlinear abstraction.
QUICK_RLIMIT = 2 * MEGA
#: Work of one concrete-launch probe.
PROBE_RLIMIT = 3 * MEGA // 2


def _clean_path_hints(ctx: ProofContext, encs, sites, prefer=()) -> list:
    """The threads' earlier accesses (and `prefer`: e.g. the other dimensions
    of the access itself) are in bounds: a replay would stop at such an
    error first."""
    return ctx.prior_access_hints(encs, list(sites)) + list(prefer)


def _clean_path_first(ctx: ProofContext, encs, sites, constraints, prefer=()) -> list:
    """An attempt with `_clean_path_hints` too, first: also when the model
    in hand keeps them, since the smaller tiers after it (which leave them out) may
    find a model that breaks them (a conv's column index out of bounds
    where its row index is out of bounds first: replay stops at the row)."""
    hints = _clean_path_hints(ctx, encs, sites, prefer)
    return [(constraints + hints, SMALL_TIER_RLIMIT)] if hints else []


def solve(ctx: ProofContext, encs: list[ThreadEncoding], query: list,
          sites: list[Point], prefer=(), seed: z3.ModelRef | None = None) -> Answer:
    """`solving.decide` on the query under the context's facts: PROVED when it
    is unsat (under the abstraction or exactly); FAILED with a model when it
    is sat -- the model taken from the smallest satisfiable tier of
    `LaunchModel.small_model_tiers` (small launches and arrays replay fast),
    else the unbounded one, preferring one where the threads' earlier
    accesses stay in bounds; or, before any search, the model of one of the
    kernel's earlier failures that satisfies this query (a read and a write
    of one element race in the same launch); UNKNOWN otherwise. `seed`, a
    model the caller found of this query (checked: it must satisfy the query
    and the facts), spares the search: it is refined in its own launch when
    that is small, as a probe's model is, else as the exact query's."""
    facts = ctx.facts(encs, list(sites))
    base = facts + list(query)
    tiers = ctx.launch.small_model_tiers()

    def refine(model, probe):
        if probe is None:             # the exact query's model
            attempts = _clean_path_first(ctx, encs, sites, base + tiers[0], prefer)
            # last: small arrays on any launch (replay runs only the offending
            # blocks, but allocates every array in full)
            wide = ctx.launch.small_model_hints(1 << 31, SMALL_MODEL_TIERS[-1][1], None)
            return attempts + [(base + hints, SMALL_TIER_RLIMIT) for hints in tiers[:-1]] + \
                [(base + tiers[-1], None), (base + wide, SMALL_TIER_RLIMIT)]
        attempts = _clean_path_first(ctx, encs, sites, base + probe + tiers[0], prefer)
        attempts += [(base + probe + tiers[0], SMALL_TIER_RLIMIT)]
        compact = ctx.launch.compact_probe(_val(model, ctx.launch.block_dim))
        if compact is not None and _val(model, ctx.launch.size) > SMALL_MODEL_TIERS[0][0]:
            attempts.append((base + compact + tiers[0], SMALL_TIER_RLIMIT))  # fewer threads
        return attempts + [(base + probe + hints, SMALL_TIER_RLIMIT) for hints in tiers[1:]]

    if seed is not None and satisfies(seed, query) and satisfies(seed, facts):
        # a launch within the tiers' sizes is kept (as a probe's, whose
        # refinement also tries a compact launch); a larger one is shrunk by
        # the exact query's tiers (replay cannot run 2**28 threads)
        small = _val(seed, ctx.launch.size) <= max(t[0] for t in SMALL_MODEL_TIERS)
        own = ctx.launch.launch_of(seed, sizes=False) if small else None
        # a seed in an earlier counterexample's launch and sizes is small already
        earlier = any(satisfies(m, ctx.launch.launch_of(seed)) for m in ctx.failure_models)
        model = first_model(ctx.budget, refine(seed, own), "smaller-model", known=seed,
                            satisfied=base, known_small=earlier) or seed
        ctx.failure_models.append(model)
        return Answer(Status.FAILED, model)
    for known in ctx.failure_models:
        # an earlier failure's model, when it is one of this query (the
        # query's own formulas first: they rule most models out at once) and
        # keeps the threads' earlier accesses in bounds (replay reaches it)
        if satisfies(known, query) and satisfies(known, facts) and \
                satisfies(known, _clean_path_hints(ctx, encs, sites, prefer)):
            return Answer(Status.FAILED, known)
    abstract = ctx.abstract(base + abstraction_geometry_facts(ctx.launch, encs))
    answer = decide(ctx.budget, base, abstract=abstract, abstract_cap=QUICK_RLIMIT,
                    probes=ctx.launch.probes(), probe_cap=PROBE_RLIMIT, refine=refine,
                    early_probes=ctx.earlier_launches(encs, sites, prefer),
                    early_cap=EARLY_PROBE_RLIMIT, relaxation=ctx.relaxation)
    if answer.status is Status.FAILED and answer.model is not None:
        ctx.failure_models.append(answer.model)
    return answer


def _val(m: z3.ModelRef, term, t=I32):
    return model_int(m, term, t)


def _wide_val(m: z3.ModelRef, term) -> int:
    raw = m.eval(term, model_completion=True).as_long()
    width = term.size()
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


def counterexample(ctx: ProofContext, m: z3.ModelRef, encs: list[ThreadEncoding],
                   abstracted: bool, **facts) -> Counterexample:
    launch = ctx.launch
    dims = tuple(_val(m, d) for d in launch.dims)
    scalars = {}
    for p in ctx.kernel.scalar_params:
        term = launch.scalars[p.value.id]
        scalars[p.name] = model_int(m, term, p.value.type)
    shapes = {}
    for a in ctx.kernel.params:
        if isinstance(a, ArrayRef):
            shapes[a.name] = tuple(_val(m, launch.shapes[(a.name, k)]) for k in range(a.ndim))
    arrays: dict[str, dict[int, object]] = {}
    for enc in encs:
        # an atomic's old value on an array whose all_in_range is kept is a
        # launch-time value when no other thread changed the element first
        # (always, for an add of 0): a replay hint, which replay checks
        hinted = [r for r in enc.atomics if r.array.name in ctx.content.kept]
        for rec in [*enc.loads, *hinted]:
            arr = rec.array
            if arr.space != "global" or \
                    (arr.name in ctx.shape.written and not any(rec is h for h in hinted)):
                continue
            if not z3.is_true(m.eval(rec.reach, model_completion=True)):
                continue
            idx = [_wide_val(m, i) for i in rec.indices]
            full = list(shapes[arr.name]) + list(arr.inner)
            if any(not 0 <= i < n for i, n in zip(idx, full)):
                continue
            flat = 0
            for i, n in zip(idx, full):
                flat = flat * n + i
            raw = m.eval(rec.value, model_completion=True)
            t = arr.dtype
            value = bits_to_float(raw.as_long(), t.bits) if t.is_float else \
                (z3.is_true(raw) if t.is_bool else t.wrap(raw.as_long()))
            arrays.setdefault(arr.name, {})[flat] = value
    for name, contents in ctx.content.launch_contents(m, encs, shapes).items():
        arrays.setdefault(name, {}).update(contents)
    threads = tuple((_val(m, e.ident.block_idx), _val(m, e.ident.thread_idx)) for e in encs)
    return Counterexample(dims=dims, block_dim=_val(m, launch.block_dim), threads=threads,
                          scalars=scalars, shapes=shapes, arrays=arrays, facts=dict(facts),
                          abstracted=abstracted)


def _who(cex: Counterexample, i: int = 0) -> str:
    b, t = cex.threads[i]
    return f"thread {t} of block {b}, block_dim {cex.block_dim}"


#: the infix ops a message rebuilds from MIR (every binary op spelled as an
#: operator but `**`, which a message shows by its value)
_SYMBOLS = {op: sym for op, sym in symbols("binary").items() if op != "pow"}


#: What a rendering built from MIR shows where it lost the source: an SSA
#: value (`%12`; `%` alone is the modulo operator) or a load's elided index.
_SSA = re.compile(r"%\d|\[\.\.\.\]")


def _name(op, ctx: ProofContext | None = None, depth: int = 0) -> str:
    """A source-like rendering of an operand: its variable name when it has
    one (a captured constant's without the `@`), else built from its
    definition, and where that would show an SSA value (`%12`) or an elided
    load (`a[...]`), the source expression it was compiled from
    (proofs.deciding.source_text)."""
    text = _built(op, ctx, depth)
    if not _SSA.search(text) or ctx is None or isinstance(op, Const) or op.name:
        return text
    ins = ctx.defs.get(op.id)
    quoted = operand_text(ctx.kernel, ins, ctx.defs) if ins is not None else None
    if quoted is None:
        return text
    return f"({quoted})" if text.startswith("(") and isinstance(ins, BinOp) else quoted


def _index_name(ctx: ProofContext, spec: ObligationSpec, idx_op) -> str:
    """Index operand `idx_op` of the access at `spec`: `_name`, or the
    access's own index text in the source where that shows an SSA value."""
    text = _name(idx_op, ctx)
    if _SSA.search(text):
        return index_text(ctx.kernel, spec.loc, spec.dim) or text
    return text


def _built(op, ctx: ProofContext | None, depth: int) -> str:
    """`_name` from the operand's definition (at most three levels deep)."""
    if isinstance(op, Const):
        return str(op.value)
    if op.name:
        return op.name.lstrip("@")
    ins = ctx.defs.get(op.id) if ctx is not None else None
    if ins is not None and depth < 3:
        if isinstance(ins, Special):
            return f"vk.{ins.kind}()" if ins.kind != "launch_dim" else f"vk.launch_dim({ins.dim})"
        if isinstance(ins, ShapeOf):
            return f"{ins.array.name}.shape[{ins.dim}]"
        if isinstance(ins, BinOp) and ins.op in _SYMBOLS:
            return (f"({_name(ins.lhs, ctx, depth + 1)} {_SYMBOLS[ins.op]} "
                    f"{_name(ins.rhs, ctx, depth + 1)})")
        if isinstance(ins, Cast):
            return f"{ins.result.type}({_name(ins.operand, ctx, depth + 1)})"
        if isinstance(ins, Load):
            return f"{ins.array.name}[...]"
    return str(op)


def _failed(spec: ObligationSpec, message: str, cex: Counterexample) -> Obligation:
    reason = None
    if cex.abstracted:
        reason = "counterexample found through an abstraction (loop, float or memory value)"
    return Obligation(spec.kind, spec.loc, Status.FAILED, message, counterexample=cex,
                      reason=reason, other_loc=spec.other_loc, spec=spec)


def _proved(spec: ObligationSpec, message: str) -> Obligation:
    return Obligation(spec.kind, spec.loc, Status.PROVED, message, other_loc=spec.other_loc,
                      spec=spec)


def _undecided(spec: ObligationSpec, what: str, ans: Answer) -> Obligation:
    return Obligation(spec.kind, spec.loc, Status.UNKNOWN, f"{what}: {ans.reason}",
                      reason=ans.reason, other_loc=spec.other_loc, spec=spec)


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
        return _proved(spec, f"{what} is always in bounds")
    # the simulator checks dimensions in order: prefer models whose earlier
    # dimensions are in bounds, so that replay reaches this one
    earlier = [ctx.within(arr, [widen(enc.term(ins.indices[j]), ins.indices[j].type)
                                 for j in range(k)])] if k else []
    ans = solve(ctx, [enc], [_reach(enc, spec.site), z3.Or(idx < 0, idx >= size)], [spec.site],
                prefer=earlier)
    if ans.status == Status.PROVED:
        return _proved(spec, f"{what} is always in bounds")
    if ans.status == Status.UNKNOWN:
        return _undecided(spec, f"{what} undecided", ans)
    m = ans.model
    iv, sv = _wide_val(m, idx), _wide_val(m, size)
    wraps = wrap_notes(ctx.defs, enc, m, idx_op, lambda o: _name(o, ctx))
    cex = counterexample(ctx, m, [enc], _abstract_ops(enc, spec.site, [idx_op]),
                         index=iv, dim=k, array=arr.name, shape=sv,
                         **({"wraps": wraps} if wraps else {}))
    shown = _index_name(ctx, spec, idx_op)
    value = "" if isinstance(idx_op, Const) else f"{shown} = {iv} but "
    why = "".join(f"; {w}" for w in wraps)
    return _failed(spec, f"index {arr.name}[{'..., ' * (k > 0)}{shown}] is out of "
                         f"bounds: {value}{arr.name}.shape[{k}] = {sv}{why} "
                         f"({_who(cex)})", cex)


def decide_div_zero(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    """The division faults in no thread: its divisor is never zero, and on
    int32/int64 it never divides INT_MIN by -1 (x86's idiv traps there, so
    Warp's CPU run dies of SIGFPE; C++ leaves it undefined)."""
    ins = _instr(ctx, spec.site)
    enc = ctx.A
    rhs = enc.term(ins.rhs)
    op = {"div": "division", "floordiv": "floor division", "mod": "modulo"}[ins.op]
    what = f"{op} at line {spec.loc.line}"
    divisor = _name(ins.rhs, ctx)
    if _SSA.search(divisor):
        divisor = divisor_text(ctx.kernel, ins) or divisor
    if facts.may_divide_by_zero(ins):
        ans = solve(ctx, [enc], [_reach(enc, spec.site), rhs == 0], [spec.site])
        if ans.status == Status.UNKNOWN:
            return _undecided(spec, f"{what} undecided", ans)
        if ans.status != Status.PROVED:
            cex = counterexample(ctx, ans.model, [enc], _abstract_ops(enc, spec.site, [ins.rhs]),
                                 divisor=divisor)
            return _failed(spec, f"{op} by zero: divisor {divisor} = 0 ({_who(cex)})", cex)
    if not facts.may_overflow(ins):
        return _proved(spec, f"the divisor of the {what} is never zero")
    t = ins.result.type
    ans = solve(ctx, [enc], [_reach(enc, spec.site), enc.term(ins.lhs) == t.min_value, rhs == -1],
                [spec.site])
    if ans.status == Status.PROVED:
        return _proved(spec, f"the divisor of the {what} is never zero and it never divides "
                             f"INT_MIN by -1")
    if ans.status == Status.UNKNOWN:
        return _undecided(spec, f"{what} undecided", ans)
    dividend = _name(ins.lhs, ctx)
    if _SSA.search(dividend):
        dividend = dividend_text(ctx.kernel, ins) or dividend
    cex = counterexample(ctx, ans.model, [enc],
                         _abstract_ops(enc, spec.site, [ins.lhs, ins.rhs]), fault="overflow",
                         dividend=dividend, dividend_value=t.min_value, divisor=divisor,
                         divisor_value=-1)
    by = "" if isinstance(ins.rhs, Const) else f" and divisor {divisor} = -1"
    return _failed(spec, f"{op} overflow: INT_MIN {_SYMBOLS[ins.op]} -1 does not fit {t.name}: "
                         f"dividend {dividend} = {t.min_value}{by} ({_who(cex)})", cex)


def decide_assert(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    ins: Assert = _instr(ctx, spec.site)
    enc = ctx.A
    ans = solve(ctx, [enc], [_reach(enc, spec.site), z3.Not(enc.term(ins.cond))],
                [spec.site])
    label = f"assertion at line {spec.loc.line}" + (f" ({ins.message})" if ins.message else "")
    if ans.status == Status.PROVED:
        return _proved(spec, f"{label} always holds")
    if ans.status == Status.UNKNOWN:
        return _undecided(spec, f"{label} undecided", ans)
    cex = counterexample(ctx, ans.model, [enc], _abstract_ops(enc, spec.site, [ins.cond]))
    return _failed(spec, f"{label} fails ({_who(cex)})", cex)


def decide_invariant(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    ins: Assert = _instr(ctx, spec.site)
    label = f"invariant at line {spec.loc.line}"
    for cs in ctx.houdini.invariants.values():
        if any(c.kind == "hint" and c.hint is ins for c in cs):
            return _proved(spec, f"{label} holds on loop entry and is preserved by every iteration")
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
        msg = f"{label} is false when the loop is entered ({_who(cex)})"
    else:
        msg = f"{label} is not preserved by an iteration of its loop ({_who(cex)})"
    return _failed(spec, msg, cex)


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
            elem = [_wide_val(m, t) for t in i1]
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
            return _failed(spec, msg, cex)
    if undecided is not None:
        return _undecided(spec, f"race between {what} undecided", undecided)
    return _proved(spec, f"no two threads race on the {what}")


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
        return _failed(spec, msg, cex)
    if undecided is not None:
        return _undecided(spec, f"barrier at line {line} undecided", undecided)
    return _proved(spec, f"every thread of a block reaches the barrier at line {line} together")


def decide_uninit(ctx: ProofContext, spec: ObligationSpec) -> Obligation:
    return uninit.decide(ctx, spec, solve, counterexample, (_proved, _failed, _undecided))


DECIDERS = {
    ObligationKind.BOUNDS: decide_bounds,
    ObligationKind.RACE: decide_race,
    ObligationKind.DIVERGENCE: decide_divergence,
    ObligationKind.ASSERT: decide_assert,
    ObligationKind.INVARIANT: decide_invariant,
    ObligationKind.DIV_ZERO: decide_div_zero,
    ObligationKind.UNINIT: decide_uninit,
}

__all__ = ["prove_kernel", "enumerate_obligations", "ObligationSpec", "DECIDERS"]
