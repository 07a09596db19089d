"""Deciding `uninit`: every read of a shared element (a load, or an atomic,
which reads the old value) was preceded by a write of that element by some
thread of the same block (docs/LANGUAGE.md section 5, property 6).

The claim is existential (*some* thread wrote it), so it is proved from
witnesses: for the reading thread A at site S with element e, either

- **self**: a store or atomic W of A itself wrote e, where W runs before S
  on every path (`ProofContext.runs_before`: then A's encoding sees W in the
  iteration of S), or no path leads from S to W (then every execution of W
  by A precedes S); or
- **barrier**: the thread of A's block whose `thread_idx` is a witness term
  w = c0 + c1*thread_idx(A) + c2*block_dim + sum_k d_k*e_k (integer
  coefficients found by counterexample-guided synthesis, `_synthesize`)
  executes a write W of e, where W happens before S through a barrier X
  (`ordering_loops`): X is in no loop that does not also contain W and S,
  every path from the start of an iteration of X's loops (or from the kernel
  start) to S passes X, and no path from X reaches W within that iteration.
  The witness thread is a separate copy of the thread encoding, sharing the
  iteration of X's loops with A (barrier loops are block-uniform: the
  divergence obligations) and assumed to reach X as A did (a barrier some
  thread of the block does not reach is a failed divergence obligation, as
  the race decider assumes too). When W sits in a barrier-free loop of its own with
  a constant trip count (at most `MAX_UNROLL` iterations, left only at its
  header), each iteration is a separate candidate, its counter bound to the
  iteration's constant. When W sits in a block-strided staging loop
  (`for j in range(thread_idx + off, stop, step)`, `uninit_candidates.
  StridedLoop`), the witness term is the counter's value v instead: the copy
  is thread (v - off) mod step in the iteration j == v, which must be a real
  one (`real_iteration`, part of the witness's validity).

Soundness: the query is "A reaches S, e is in bounds, and for every candidate
either its witness is not a thread of the block, or the copy bound to the
witness (thread, block and iteration) does not write e at W". Bindings are
constraints, never substitutions into the facts, so a witness outside the
block cannot make the facts vacuous: such a witness only makes the query
satisfiable. An `unsat` answer therefore means: in every real execution, a
real thread of A's block (the witness, in a real iteration) writes e before
the barrier that A passes before S (or A wrote it itself), i.e. `proved`.
An access out of bounds is not a read of an element: it is assumed in bounds
here (its bounds obligation reports it).

Anything else is not a proof: when no witness is found, the last model of the
query is a *possible* violation, reported as a counterexample marked
abstracted, so that `failed` stands only if replay on the simulator (which
tracks the written elements of each block) confirms it; otherwise the
pipeline reports `unknown`.
"""
from __future__ import annotations

from fractions import Fraction

import z3

from verikern.mir import facts
from verikern.mir.nodes import Atomic, Load
from verikern.proofs.deciding.budget import MEGA, unknown_reason
from verikern.proofs.deciding.prover_context import EARLY_PROBE_RLIMIT, ProofContext
from verikern.proofs.deciding.uninit_candidates import (
    Candidate, barrier_reach_exact as _barrier_reach_exact, candidates, real_iteration,
)
from verikern.proofs.deciding.solving import Answer, check, satisfies
from verikern.proofs.deciding import uninit_terms as terms
from verikern.proofs.obligations import Obligation, ObligationSpec, Status

#: Rounds of witness synthesis before giving up.
MAX_ROUNDS = 8
#: Work of one synthesis query (z3 resource units).
SYNTH_RLIMIT = MEGA
#: Every array dimension of the first sample is at least this (when admitted).
WIDE_SHAPE = 1024
#: Threads of the block whose writes are sampled for a candidate's first witness.
INVERSE_POINTS = 12
#: Work of the search for one sample's concrete witness thread.
POINT_RLIMIT = MEGA // 2
#: Witness coefficients are searched in [-COEFF_BOUND, COEFF_BOUND].
COEFF_BOUND = 4096
COEFF_BITS = 16
#: Work of the quick check under the nonlinear abstraction, and of one
#: concrete-launch probe, in a synthesis round.
QUICK_RLIMIT = 2 * MEGA
#: Work of the claim with its first candidate alone (`_first_alone`).
FIRST_ALONE_RLIMIT = MEGA // 2
PROBE_RLIMIT = 3 * MEGA // 2


def _read_at(ctx: ProofContext, spec: ObligationSpec) -> Load | Atomic:
    """The read of shared memory at the uninit obligation's site (the sites
    of uninit obligations are loads and atomics, `proofs.obligations.reads_shared`)."""
    ins = ctx.kernel.block(spec.site[0]).instrs[spec.site[1]]
    if not facts.reads_memory(ins):
        raise TypeError(f"uninit obligation at {spec.loc}: its site is not a memory read")
    return ins


def claim(ctx: ProofContext, spec: ObligationSpec, selfs, cands, coeffs) -> list:
    """The negated claim under witnesses `coeffs` (one vector per candidate)."""
    A = ctx.A
    ins = _read_at(ctx, spec)
    e = A.index_terms(ins)
    basis = terms.basis(ctx, e, cands)
    q = [A.reach.get(spec.site[0], z3.BoolVal(False)), ctx.within(ins.array, e[:ins.array.ndim])]
    for s in selfs:
        other = ctx.kernel.block(s[0]).instrs[s[1]]
        q.append(z3.Not(z3.And(A.reach.get(s[0], z3.BoolVal(False)),
                               *[a == b for a, b in zip(A.index_terms(other), e)])))
    for cand, c in zip(cands, coeffs):
        w = terms.witness([z3.BitVecVal(x, e[0].size()) for x in c], basis)
        q.extend(cand.facts)
        bind = terms.bind(ctx, cand, w)
        valid = terms.valid(ctx, w, cand) if cand.guard is None else \
            z3.And(terms.valid(ctx, w, cand), cand.guard)
        leaving = _barrier_reach_exact(ctx, cand)
        if leaving is not None:
            # freedom from divergence: the witness, a thread of A's block,
            # reaches the barrier A passed (in the same iteration of the loops
            # they share, having left the others)
            q.extend(leaving)
            q.append(z3.Implies(z3.And(valid, bind),
                                cand.enc.reach.get(cand.barrier[0], z3.BoolVal(False))))
        q.append(z3.Or(z3.Not(valid), z3.And(bind, z3.Not(terms.covers(ctx, cand, e)))))
    return q


def unit_guesses(n_basis: int, fitted: list | None) -> list[list[int]]:
    """A candidate's sparse witness guesses, in order: its affine inverse
    (`inverse_fit`) when found, the reader's own thread index, and each index
    component of the element read (w = e_k)."""
    out = [list(fitted)] if fitted is not None else []
    for k in [1] + list(range(3, n_basis)):
        unit = [0] * n_basis
        unit[k] = 1
        if unit not in out:
            out.append(unit)
    return out


def _synthesize(ctx: ProofContext, spec: ObligationSpec, cands, samples,
                guesses: list | None = None) -> list | None:
    """Coefficient vectors under which every sample model is covered by some
    candidate, or None (no such integer combination, or undecided). For each
    sample and candidate a small query finds a concrete witness thread (the
    candidate's copy bound to it writes the sample's element); the
    coefficients are then fitted to those points, preferring sparse
    witnesses with small multipliers (tried first): each candidate one of
    its `guesses` (`unit_guesses`), then no constant and multipliers in
    -1..1, then a constant, then larger multipliers. One that fits the
    samples so tends to be the general one (few samples admit many dense
    fits with large constants, which the next round refutes)."""
    A = ctx.A
    ins = _read_at(ctx, spec)
    e = A.index_terms(ins)
    width = e[0].size()
    basis = terms.basis(ctx, e, cands)
    cvars = [[z3.BitVec(f"uninit_c{j}_{k}", COEFF_BITS) for k in range(len(basis))]
             for j in range(len(cands))]
    wide = [[z3.SignExt(width - COEFF_BITS, c) for c in cs] for cs in cvars]
    fits = []
    for m in samples:
        concrete = [m.eval(t, model_completion=True) for t in basis]
        ev = [m.eval(t, model_completion=True) for t in e]
        options = []
        for cand, cs in zip(cands, wide):
            point = _witness_point(ctx, cand, m, ev, concrete[2])
            if point is not None:
                options.append(terms.witness(cs, concrete) == point)
        if not options:
            return None                   # no candidate covers this sample at all
        fits.append(z3.Or(*options))
    tiers: list = [None] if guesses is not None else []
    tiers += [(0, 1), (COEFF_BOUND, 1), (COEFF_BOUND, COEFF_BOUND)]
    for tier in tiers:                   # sparse, then small multipliers first
        solver = ctx.budget.solver(SYNTH_RLIMIT, "uninit-synth")
        for j, cs in enumerate(cvars):
            if tier is None:
                assert guesses is not None
                solver.add(z3.Or(*[z3.And(*[c == g for c, g in zip(cs, guess)])
                                   for guess in guesses[j]]))
                continue
            const, bound = tier
            solver.add(cs[0] >= -const, cs[0] <= const)
            for k, c in enumerate(cs[1:], start=1):
                if k == 2 and z3.is_bv_value(z3.simplify(basis[2])):
                    solver.add(c == 0)    # a fixed block_dim is a constant already
                else:
                    solver.add(c >= -bound, c <= bound)
        solver.add(*fits)
        if solver.check() == z3.sat:
            model = solver.model()
            break
    else:
        return None
    return [[_signed(model, c) for c in cs] for cs in cvars]


def _witness_point(ctx: ProofContext, cand: Candidate, m: z3.ModelRef, ev, block_dim):
    """A thread index (as a BV value of the index width) whose copy, bound as
    `cand` says, writes element `ev` in the sample `m`; None if none is found."""
    A = ctx.A
    hole = z3.BitVec(f"uninit_hole_{cand.enc.tag}", 32)
    leaving = _barrier_reach_exact(ctx, cand)
    at_barrier = z3.BoolVal(True) if leaving is None else \
        z3.Implies(z3.And(*leaving), cand.enc.reach.get(cand.barrier[0], z3.BoolVal(False)))
    cover = z3.And(*cand.link, z3.Implies(at_barrier, terms.covers(ctx, cand, tuple(ev))))
    free = [(v, z3.FreshConst(v.sort(), "uninit_free")) for v in cand.free]
    # the copy is inside the loops it shares with A (block-uniform)
    free += [(hv.reach_var, z3.BoolVal(True)) for h, hv in cand.enc.havoc.items()
             if h in cand.loops]
    if cand.stride is not None:
        # the hole is the counter's value; the thread is the one running it;
        # the copy's other values in its own loop are left free
        stride = cand.stride
        hole = z3.BitVec(f"uninit_hole_{cand.enc.tag}_counter", stride.counter.size())
        thread, real = real_iteration(stride, hole, block_dim)
        own = cand.enc.havoc[stride.header]
        free += [(v, z3.FreshConst(v.sort(), "uninit_free")) for v in own.phis.values()
                 if not v.eq(stride.counter)]
        free += [(own.reach_var, z3.BoolVal(True))]
        cover = z3.And(cover, real)
        cover = z3.substitute(cover, (stride.counter, hole),
                              (cand.enc.ident.thread_idx, z3.Extract(31, 0, thread)),
                              (cand.enc.ident.block_idx, A.ident.block_idx), *free)
        inside = z3.BoolVal(True)
    else:
        cover = z3.substitute(cover, (cand.enc.ident.thread_idx, hole),
                              (cand.enc.ident.block_idx, A.ident.block_idx), *cand.iteration,
                              *free)
        inside = z3.ULT(hole, z3.Extract(31, 0, block_dim))
    cover = m.eval(cover, model_completion=False)
    if cand.guard is not None and not z3.is_true(m.eval(cand.guard, model_completion=True)):
        return None
    s = ctx.budget.solver(POINT_RLIMIT, "uninit-point")
    s.add(inside, cover)
    if s.check() != z3.sat:
        return None
    t = s.model().eval(hole, model_completion=True).as_long()
    if cand.stride is not None and cand.stride.signed:
        t = _as_signed(t, hole.size()) % (1 << ev[0].size())
    return z3.BitVecVal(t, ev[0].size())


def _spread(n: int) -> list[int]:
    """Up to INVERSE_POINTS thread indices spread over 0..n-1."""
    picks = {0, 1, 2, 3, n - 1, n - 2, n // 2, n // 3, (2 * n) // 3, n // 4 + 1, 5, 7}
    return sorted(t for t in picks if 0 <= t < n)[:INVERSE_POINTS]


def inverse_fit(ctx: ProofContext, spec: ObligationSpec, cand: Candidate, m: z3.ModelRef,
                width: int, cands=()) -> list | None:
    """A first witness for `cand`: the affine inverse of its write index.
    In the launch and block of sample `m`, the copy is run (by evaluation,
    or a small query when it has free values) as threads spread over the
    block; each that executes the write gives a point (element written,
    thread); an integer combination c0 + sum d_k * e_k (and of the XOR
    inverses of `cands`' writes, `xor_inverses`) through every point is
    fitted: exactly (`unique_fit`) when the points determine it, else
    constant first, then small, then larger multipliers."""
    if cand.stride is not None:
        return None                       # its witness is a counter value: unit guesses
    A = ctx.A
    ins = ctx.kernel.block(cand.site[0]).instrs[cand.site[1]]
    idx = cand.enc.index_terms(ins)
    reach = z3.And(*cand.link, cand.enc.reach.get(cand.site[0], z3.BoolVal(False)))
    bd = m.eval(ctx.launch.block_dim, model_completion=True).as_long()
    free = [(v, z3.FreshConst(v.sort(), "uninit_free")) for v in cand.free]
    free += [(hv.reach_var, z3.BoolVal(True)) for h, hv in cand.enc.havoc.items()
             if h in cand.loops]
    points = []
    for t in _spread(bd):
        sub = [(cand.enc.ident.thread_idx, z3.BitVecVal(t, 32)),
               (cand.enc.ident.block_idx, A.ident.block_idx), *cand.iteration, *free]
        r = m.eval(z3.substitute(reach, *sub), model_completion=False)
        ix = [m.eval(z3.substitute(i, *sub), model_completion=False) for i in idx]
        if z3.is_false(r):
            continue
        if not (z3.is_true(r) and all(z3.is_bv_value(v) for v in ix)):
            s = ctx.budget.solver(POINT_RLIMIT, "uninit-inverse")
            s.add(r)
            if s.check() != z3.sat:
                continue
            ix = [s.model().eval(v, model_completion=True) for v in ix]
        points.append(([v.as_long() for v in ix], t))
    if not points:
        return None
    # the XOR inverses of the obligation's writes, on each point's element
    specs = terms.xor_specs(ctx, cands, len(idx))
    for ev, _t in points:
        vals = [z3.BitVecVal(v, width) for v in ev]
        sub = [(cand.enc.ident.block_idx, A.ident.block_idx), *free]
        for xs in specs:
            x = m.eval(z3.substitute(terms.xor_term(xs, vals), *sub), model_completion=True)
            ev.append(x.as_long() if z3.is_bv_value(x) else 0)
    n = len(idx) + len(specs)
    cs = [z3.BitVec(f"uninit_inv_{k}", COEFF_BITS) for k in range(n + 1)]
    wide = [z3.SignExt(width - COEFF_BITS, c) for c in cs]
    # an index the same in every point says nothing about its multiplier: 0
    fixed = [all(ev[k] == points[0][0][k] for ev, _ in points) for k in range(n)]
    unique = unique_fit([([_as_signed(v, width) for v in ev], t) for ev, t in points], fixed)
    if unique is not None:
        return [unique[0], 0, 0, *unique[1:]]
    for bound in (0, 1, COEFF_BOUND):
        s = ctx.budget.solver(SYNTH_RLIMIT, "uninit-inverse-fit")
        s.add(cs[0] >= -COEFF_BOUND, cs[0] <= COEFF_BOUND)
        s.add(*[z3.And(c >= -bound, c <= bound) for c in cs[1:]])
        s.add(*[c == 0 for c, same in zip(cs[1:], fixed) if same])
        for ev, t in points:
            w = wide[0]
            for c, v in zip(wide[1:], ev):
                w = w + c * z3.BitVecVal(v, width)
            s.add(w == t)
        if s.check() == z3.sat:
            model = s.model()
            vals = [_signed(model, c) for c in cs]
            return [vals[0], 0, 0, *vals[1:]]
    return None


def _as_signed(raw: int, width: int) -> int:
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


def unique_fit(points: list, fixed: list) -> list | None:
    """The integer vector [c0, d_1, ..., d_n] with c0 + sum d_k*e_k == t at
    every point (e, t), d_k = 0 where `fixed[k]`, when the system has exactly
    one rational solution, it is integral and every entry is within
    COEFF_BOUND; else None (then `inverse_fit` searches by tiers). Exact
    (fractions), with no solver: a unique solution is the one any tier would
    find, so this only saves the queries."""
    cols = [k for k, same in enumerate(fixed) if not same]
    rows = [[Fraction(1)] + [Fraction(e[k]) for k in cols] + [Fraction(t)] for e, t in points]
    m = len(cols) + 1
    pivots: list[int] = []
    r = 0
    for c in range(m):
        pick = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if pick is None:
            return None                   # a free column: not unique
        rows[r], rows[pick] = rows[pick], rows[r]
        lead = rows[r][c]
        rows[r] = [x / lead for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    if any(row[m] != 0 for row in rows[r:]):
        return None                       # inconsistent over the rationals
    sol = [rows[i][m] for i in range(m)]
    if any(x.denominator != 1 or abs(x) > COEFF_BOUND for x in sol):
        return None
    out = [int(sol[0])] + [0] * len(fixed)
    for k, x in zip(cols, sol[1:]):
        out[1 + k] = int(x)
    return out


def _first_sample(ctx: ProofContext, spec: ObligationSpec) -> z3.ModelRef | None:
    """A cheap reader state at the site (in bounds; a model of A alone),
    from which `inverse_fit` takes each candidate's first witness: on a
    concrete-launch probe with every array dimension at least WIDE_SHAPE
    (guarded writes then run in many threads, the points of the fit) when
    the contracts admit one, else on the first probe that has a state; the
    launch left free last, for contracts that exclude every probe (a fixed
    `block_dim() == 256`); before any search, an earlier read's sample that
    is also one of this read with wide shapes. None when none is found
    within PROBE_RLIMIT each."""
    A = ctx.A
    ins = _read_at(ctx, spec)
    e = A.index_terms(ins)
    base = ctx.facts([A], [spec.site]) + [A.reach.get(spec.site[0], z3.BoolVal(False)),
                                          ctx.within(ins.array, e[:ins.array.ndim])]
    tries = ctx.launch.probes() + [[]]
    large = [z3.UGE(v, WIDE_SHAPE) for v in ctx.launch.shapes.values()]
    for earlier in ctx.uninit_samples:
        # another read's sample that is one of this read too (the next
        # read of the same block, in bounds there): no search
        if satisfies(earlier, base) and satisfies(earlier, large):
            return earlier
    for extra in (large, []):
        for probe in tries:
            res, model, _s = check(ctx.budget, base + probe + extra, PROBE_RLIMIT,
                                   "uninit-sample")
            if res == z3.sat:
                ctx.uninit_samples.append(model)
                return model
    return None


def _quick(ctx: ProofContext, encs, query: list, sites) -> Answer:
    """`solving.decide`'s strategy on the query under the context's facts,
    without the model refinement of `prover_solve.solve` (a synthesis round needs
    any model), its exact check limited to a third of a check's budget
    (raising --budget raises it): a round with a wrong witness must not
    spend a whole check."""
    base = ctx.facts(encs, list(sites)) + list(query)
    res, _, _ = check(ctx.budget, ctx.abstract(base), QUICK_RLIMIT, "uninit-abstract")
    if res == z3.unsat:
        return Answer(Status.PROVED)
    # an earlier counterexample's launch first, as `prover_solve.solve` does
    for launch in ctx.earlier_launches(encs, sites):
        res, model, _ = check(ctx.budget, base + launch, EARLY_PROBE_RLIMIT,
                              "uninit-early-probe")
        if res == z3.sat:
            return Answer(Status.FAILED, model)
    for probe in ctx.launch.probes():
        res, model, _ = check(ctx.budget, base + probe, PROBE_RLIMIT, "uninit-probe")
        if res == z3.sat:
            return Answer(Status.FAILED, model)
    res, model, solver = check(ctx.budget, base, max(ctx.budget.per_check // 3, QUICK_RLIMIT),
                               "uninit-exact")
    if res == z3.unsat:
        return Answer(Status.PROVED)
    if res == z3.sat:
        return Answer(Status.FAILED, model)
    return Answer(Status.UNKNOWN, reason=unknown_reason(solver))


def _one_write_many_ways(cands: list) -> bool:
    """Several candidates, all of one write, the first through its barrier
    in the same iteration (no guard, no iteration of its own): the others
    are the same write through a later barrier or in the previous iteration
    (a tiled loop's load), which the first usually covers alone."""
    if len(cands) < 2:
        return False
    first = cands[0]
    return first.guard is None and not first.iteration and \
        all(c.site == first.site for c in cands[1:])


def _first_alone(ctx: ProofContext, spec: ObligationSpec, selfs, cand: Candidate,
                 coeffs) -> bool:
    """The claim with only its first candidate (and its first witness) is
    unsat under the abstraction: fewer candidates are fewer ways to cover
    the read, so that claim implies the whole one (a query with one thread
    copy fewer; the nearest barrier's write usually covers the read alone)."""
    encs = [ctx.A, cand.enc]
    query = claim(ctx, spec, selfs, [cand], [coeffs])
    base = ctx.facts(encs, [spec.site, cand.site]) + query
    res, _, _ = check(ctx.budget, ctx.abstract(base), FIRST_ALONE_RLIMIT, "uninit-first-alone")
    return res == z3.unsat


def initial_coefficients(n_basis: int, n: int) -> list:
    """Every candidate's first guess: the reader's own thread index."""
    first = [0] * n_basis
    first[1] = 1
    return [list(first) for _ in range(n)]


def decide(ctx: ProofContext, spec: ObligationSpec, solve, counterexample, verdicts) -> Obligation:
    """The uninit decider (see the module docstring). `solve`,
    `counterexample` and `verdicts` (proved, failed, undecided) are passed in by
    `proofs.deciding.prover` (from prover_solve and prover_messages)."""
    proved, failed, undecided = verdicts
    ins = _read_at(ctx, spec)
    arr = ins.array
    what = f"read of {arr.name} at line {spec.loc.line}"
    selfs, cands = candidates(ctx, spec.site)
    A = ctx.A
    e = A.index_terms(ins)
    n_basis = len(terms.basis(ctx, e, cands))
    coeffs = initial_coefficients(n_basis, len(cands))
    encs = [A] + list(dict.fromkeys(c.enc for c in cands))
    sites = [spec.site] + [next(c.site for c in cands if c.enc is enc) for enc in encs[1:]]
    first = _first_sample(ctx, spec) if cands else None
    fitted: list = [None] * len(cands)
    if first is not None:
        width = e[0].size()
        for j, cand in enumerate(cands):
            fit = inverse_fit(ctx, spec, cand, first, width, cands)
            if fit is not None:
                fitted[j] = coeffs[j] = fit + [0] * (n_basis - len(fit))
    guesses = [unit_guesses(n_basis, f) for f in fitted]
    written = f"every element the {what} reads was written earlier by a thread of the block"
    if _one_write_many_ways(cands) and _first_alone(ctx, spec, selfs, cands[0], coeffs[0]):
        return proved(spec, written)
    samples: list = []
    ans = None
    seed = None           # a model of the claim the loop ends with
    for _ in range(MAX_ROUNDS):
        ans = _quick(ctx, encs, claim(ctx, spec, selfs, cands, coeffs), sites)
        if ans.status == Status.PROVED:
            return proved(spec, written)
        if ans.status == Status.UNKNOWN:
            return undecided(spec, f"{what} undecided", ans)
        seed = ans.model
        if not cands:
            break
        samples.append(ans.model)
        found = _synthesize(ctx, spec, cands, samples, guesses)
        if found is None:
            break
        coeffs, seed = found, None
    # the counterexample: the last claim again, its model (when the last round
    # found one) refined to a small launch that replays fast
    final = solve(ctx, encs, claim(ctx, spec, selfs, cands, coeffs), sites, seed=seed)
    if final.status == Status.PROVED:
        return proved(spec, written)
    if final.status == Status.UNKNOWN:
        return undecided(spec, f"{what} undecided", final)
    m = final.model
    elem = [_signed(m, t) for t in e[:arr.ndim]]
    kind = "atomic update" if isinstance(ins, Atomic) else "read"
    cex = counterexample(ctx, m, [A], True, array=arr.name, index=elem)
    b, t = cex.threads[0]
    el = f"{arr.name}[{', '.join(str(x) for x in elem)}]"
    why = "no store to it runs before" if not selfs and not cands else \
        "no thread of the block is known to write it before"
    return failed(spec, f"{kind} of uninitialised shared memory {el} at line {spec.loc.line}: "
                        f"{why} (thread {t} of block {b}, block_dim {cex.block_dim})", cex)


def _signed(m: z3.ModelRef, term) -> int:
    raw = m.eval(term, model_completion=True).as_long()
    width = term.size()
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


__all__ = ["decide", "candidates", "claim", "inverse_fit", "Candidate"]
