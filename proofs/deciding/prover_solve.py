"""One obligation's query, decided under its proof context's facts, and the
counterexample read off a model of it (the deciders of proofs.deciding.prover
state each obligation's query; this module asks it and reads the answer).

Invariant: `solve` answers PROVED only from an `unsat` of `solving.decide`
(the query under the context's sound facts, abstracted or exact), FAILED only
with a model of the exact query and the facts (a refinement, an earlier
failure's model or a caller's seed is kept only when it satisfies both), and
UNKNOWN otherwise; `counterexample` reads values off a model and adds no
claim of its own (whether a model is exact is the caller's `abstracted`).
"""
from __future__ import annotations

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.encoders.smt.geometry import abstraction_geometry_facts
from verikern.encoders.smt.launch import SMALL_MODEL_TIERS
from verikern.encoders.smt.semantics import bits_to_float, model_int
from verikern.mir.nodes import ArrayRef
from verikern.mir.types import I32

from verikern.proofs.deciding.budget import MEGA
from verikern.proofs.obligations import Counterexample, Point, Status
from verikern.proofs.deciding.prover_context import EARLY_PROBE_RLIMIT, ProofContext
from verikern.proofs.deciding.solving import Answer, decide, first_model, satisfies


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
        compact = ctx.launch.compact_probe(model_value(model, ctx.launch.block_dim))
        if compact is not None and model_value(model, ctx.launch.size) > SMALL_MODEL_TIERS[0][0]:
            attempts.append((base + compact + tiers[0], SMALL_TIER_RLIMIT))  # fewer threads
        return attempts + [(base + probe + hints, SMALL_TIER_RLIMIT) for hints in tiers[1:]]

    if seed is not None and satisfies(seed, query) and satisfies(seed, facts):
        # a launch within the tiers' sizes is kept (as a probe's, whose
        # refinement also tries a compact launch); a larger one is shrunk by
        # the exact query's tiers (replay cannot run 2**28 threads)
        small = model_value(seed, ctx.launch.size) <= max(t[0] for t in SMALL_MODEL_TIERS)
        own = ctx.launch.launch_of(seed, sizes=False) if small else None
        # a seed in an earlier counterexample's launch and sizes is small already
        launch = ctx.launch.launch_of(seed)
        earlier = any(ctx.failure_truths.satisfies(m, launch) for m in ctx.failure_models)
        model = first_model(ctx.budget, refine(seed, own), "smaller-model", known=seed,
                            satisfied=base, known_small=earlier) or seed
        ctx.failure_models.append(model)
        return Answer(Status.FAILED, model)
    truths = ctx.failure_truths
    for known in ctx.failure_models:
        # an earlier failure's model, when it is one of this query (the
        # query's own formulas first: they rule most models out at once) and
        # keeps the threads' earlier accesses in bounds (replay reaches it)
        if truths.satisfies(known, query) and truths.satisfies(known, facts) and \
                truths.satisfies(known, _clean_path_hints(ctx, encs, sites, prefer)):
            return Answer(Status.FAILED, known)
    abstract = ctx.abstract(base + abstraction_geometry_facts(ctx.launch, encs))
    answer = decide(ctx.budget, base, abstract=abstract, abstract_cap=QUICK_RLIMIT,
                    probes=ctx.launch.probes(), probe_cap=PROBE_RLIMIT, refine=refine,
                    early_probes=ctx.earlier_launches(encs, sites, prefer),
                    early_cap=EARLY_PROBE_RLIMIT, relaxation=ctx.relaxation)
    if answer.status is Status.FAILED and answer.model is not None:
        ctx.failure_models.append(answer.model)
    return answer


def model_value(m: z3.ModelRef, term, t=I32):
    """`term`'s value in `m` as a value of type `t` (int32 unless given)."""
    return model_int(m, term, t)


def signed_value(m: z3.ModelRef, term) -> int:
    """The bit-vector `term`'s value in `m`, read as signed at its own width."""
    raw = m.eval(term, model_completion=True).as_long()
    width = term.size()
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


def counterexample(ctx: ProofContext, m: z3.ModelRef, encs: list[ThreadEncoding],
                   abstracted: bool, **facts) -> Counterexample:
    launch = ctx.launch
    dims = tuple(model_value(m, d) for d in launch.dims)
    scalars = {}
    for p in ctx.kernel.scalar_params:
        term = launch.scalars[p.value.id]
        scalars[p.name] = model_int(m, term, p.value.type)
    shapes = {}
    for a in ctx.kernel.params:
        if isinstance(a, ArrayRef):
            shapes[a.name] = tuple(model_value(m, launch.shapes[(a.name, k)])
                                   for k in range(a.ndim))
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
            idx = [signed_value(m, i) for i in rec.indices]
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
    threads = tuple((model_value(m, e.ident.block_idx), model_value(m, e.ident.thread_idx))
                    for e in encs)
    return Counterexample(dims=dims, block_dim=model_value(m, launch.block_dim), threads=threads,
                          scalars=scalars, shapes=shapes, arrays=arrays, facts=dict(facts),
                          abstracted=abstracted)


__all__ = ["PROBE_RLIMIT", "QUICK_RLIMIT", "SMALL_TIER_RLIMIT", "counterexample", "model_value",
           "signed_value", "solve"]
