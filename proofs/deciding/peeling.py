"""Exact counterexamples for loop-carried bugs, found in peeled iterations.

The prover havocs loop headers, so a violation inside a loop often comes with
a model of an iteration no execution reaches. Here the kernel's loops are
peeled (`verikern.mir.passes.peel`): the first iterations become straight-line
copies in front of each loop (nested loops inside those copies too), and what
remains of every loop is cut off (`truncate_loops`), so the proof context
sees an acyclic kernel and encodes every path exactly (no havoc, no invariant
inference); the obligation's decider (`proofs.deciding.prover.DECIDERS`) is run on the
copies of the obligation's site(s).

Invariants:
- only ever produces failures, never proofs: an obligation of a peeled copy
  that is proved or undecided says nothing about the other iterations, and
  is dropped;
- a failure is returned only when its model is not marked abstracted (the
  violating path lies in peeled, exact iterations, and the values involved
  are exact); for divergence no thread copy of the model goes on into a
  cut-off loop (its proof context has the cut block as infeasible), so a
  thread cut off there never passes for one that skips the barrier; the
  caller still confirms it by replay on the original kernel;
- the returned obligation has the kind, source location(s) and other_loc of
  the original obligation; its message and reason name the iteration;
- every search runs under a deterministic work budget (z3 resource units,
  `proofs.deciding.budget`), checked before each solver query;
- after the small probe launches, each copy is probed at the int32 limit
  (`limit_probes`) before the exact query, so a wrap-around that needs a
  launch of 2**31 - 1 threads is found by a cheap fixed-launch query, not
  by whatever model the exact query picks.
"""
from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict
from contextlib import contextmanager, nullcontext

import z3

from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES
from verikern.mir.cfg import reachable_labels
from verikern.mir.cfg import retarget as _retarget
from verikern.mir.nodes import Block, Kernel, Return
from verikern.mir.passes.peel import SiteMap, peel_loops

from verikern.proofs.deciding.budget import CONTEXT_CACHES, MEGA, own_context, rlimit_count
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.crosscheck import apply_cross_checks
from verikern.proofs.obligations import Obligation, ObligationKind, Status
from verikern.proofs.deciding.prover import DECIDERS, ObligationSpec, enumerate_obligations
from verikern.proofs.deciding.prover_context import ProofContext

#: Iterations peeled in front of every loop: a few first, then more while
#: the work budget lasts (an off-by-one past a constant bound of 10...).
DEFAULT_ITERATIONS = 3
DEFAULT_ROUNDS = (DEFAULT_ITERATIONS, 12)
#: z3 resource units one `exact_counterexample` call may spend (checked
#: before each query: one query that started within it may finish past it).
DEFAULT_BUDGET = 8 * MEGA
#: Per-query work limit (z3 resource units) in the peeled kernel's context.
QUERY_RLIMIT = 4 * MEGA


def _query_budget() -> SolverSession:
    """Budget of a peeled context: each query at most QUERY_RLIMIT; the
    search as a whole is bounded by `exact_counterexample`'s budget."""
    return SolverSession(QUERY_RLIMIT, total=1 << 62, label="peeled.")
#: At most this many pairs of copies are tried for one race obligation.
MAX_RACE_PAIRS = 9


class PeeledContext:
    """The peeled kernel of one kernel and launch, its SiteMap, and (built on
    first use) its proof context: `ctx` is None when the prover cannot encode
    the peeled kernel, with the reason in `error`."""

    def __init__(self, kernel: Kernel, sites: SiteMap, dims, block_dim,
                 max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES):
        self.kernel = kernel
        self.sites = sites
        self._launch = (dims, block_dim)
        self._max_array_bytes = max_array_bytes
        self._ctx: ProofContext | None = None
        self._divergence_ctx: ProofContext | None = None
        self.error: str | None = None
        #: the work limit of every query in this context (set per search)
        self.budget = _query_budget()

    def context_for(self, kind: ObligationKind) -> ProofContext | None:
        """The context to decide an obligation of `kind` in. For divergence,
        no thread copy may go on into a cut-off loop: as a `return` it would
        look like a thread that stops instead of reaching the barrier (a
        cross-thread claim the under-approximation does not support); one
        thread's own violations stay real up to the cut, so other kinds use
        `ctx`."""
        ctx = self.ctx
        if kind is not ObligationKind.DIVERGENCE or ctx is None:
            return ctx
        if self._divergence_ctx is None:
            cut = frozenset(b.label for b in ctx.kernel.blocks) - \
                frozenset(b.label for b in self.kernel.blocks)
            self._divergence_ctx = ProofContext(ctx.kernel, *self._launch, self.budget,
                                                infeasible=cut,
                                                max_array_bytes=self._max_array_bytes)
        return self._divergence_ctx

    @property
    def ctx(self) -> ProofContext | None:
        """The proof context of the peeled kernel with its remaining loops cut
        off (`truncate_loops`): the copies are all it needs, and without
        loops it infers no invariants."""
        if self._ctx is None and self.error is None:
            try:
                self._ctx = ProofContext(truncate_loops(self.kernel), *self._launch,
                                         self.budget, max_array_bytes=self._max_array_bytes)
            except Exception as err:   # unsupported, bad launch, solver error: no search
                self.error = f"{type(err).__name__}: {err}"
        return self._ctx


def truncate_loops(kernel: Kernel) -> Kernel:
    """`kernel` with every loop cut off: each edge entering a loop goes to a
    new block that ends the thread, and the blocks no longer reachable are
    dropped (with the phi operands of edges from them). Not equivalent to
    `kernel`, but an under-approximation of it: every path of the result up
    to an instruction that is not the new `ret` is a path of `kernel`, with
    the same values, so a violation the prover finds at a kept instruction
    happens in `kernel` too (the caller confirms it by replay anyway). Labels
    and instruction positions of the kept blocks are unchanged."""
    if not kernel.loops:
        return kernel
    labels = {b.label for b in kernel.blocks}
    cut = "loop_cut"
    while cut in labels:
        cut += "_"
    headers = {lp.header: set(lp.body) for lp in kernel.loops}
    preds = kernel.predecessors()
    entering = {p for h, body in headers.items() for p in preds[h] if p not in body}
    blocks = []
    for b in kernel.blocks:
        term = b.terminator
        if b.label in entering:
            term = _retarget(term, lambda d: cut if d in headers else d)
        blocks.append(Block(b.label, b.phis, b.instrs, term))
    blocks.append(Block(cut, (), (), Return(kernel.loc)))
    reachable = reachable_labels(blocks)
    kept = []
    for b in blocks:
        if b.label not in reachable:
            continue
        phis = tuple(dataclasses.replace(phi, incoming=tuple(
            (src, v) for src, v in phi.incoming if src in reachable)) for phi in b.phis)
        kept.append(Block(b.label, phis, b.instrs, b.terminator))
    return dataclasses.replace(kernel, blocks=tuple(kept), loops=())


_CACHE: "OrderedDict[tuple, tuple[Kernel, PeeledContext, z3.Context]]" = OrderedDict()
_CACHE_SIZE = 4
CONTEXT_CACHES.append(_CACHE.clear)


def peeled_context(kernel: Kernel, dims=None, block_dim=None,
                   iterations: int = DEFAULT_ITERATIONS,
                   max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES) -> PeeledContext:
    """The (cached, per kernel object, launch and z3 context) peeled kernel
    and context: a proof in a fresh z3 context never reuses one built in an
    earlier context, whose history would change its answers."""
    key = (id(kernel), dims, block_dim, iterations, max_array_bytes)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is kernel and hit[2] is z3.main_ctx():
        _CACHE.move_to_end(key)
        return hit[1]
    peeled, sites = peel_loops(kernel, iterations, outer_only=True)
    result = PeeledContext(peeled, sites, dims, block_dim, max_array_bytes)
    _CACHE[key] = (kernel, result, z3.main_ctx())
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


def specs_for(kernel: Kernel, obligation: Obligation | ObligationSpec) -> list[ObligationSpec]:
    """The specs of `kernel` an obligation is about: the spec it was decided
    from, else those matching its kind and location (for a bounds obligation
    of a multi-dimensional access, the dimension its counterexample names,
    else every dimension)."""
    if isinstance(obligation, ObligationSpec):
        return [obligation]
    if obligation.spec is not None:
        return [obligation.spec]
    dim = None
    if obligation.counterexample is not None:
        dim = obligation.counterexample.facts.get("dim")
    out = []
    for spec in enumerate_obligations(kernel):
        if spec.kind is not obligation.kind or spec.loc != obligation.loc:
            continue
        if spec.other_loc != obligation.other_loc:
            continue
        if spec.kind is ObligationKind.BOUNDS and dim is not None and spec.dim != dim:
            continue
        out.append(spec)
    return out


@own_context()
def exact_counterexample(kernel: Kernel, obligation: Obligation | ObligationSpec, *,
                         dims=None, block_dim=None,
                         iterations: int | tuple[int, ...] = DEFAULT_ROUNDS,
                         budget: int = DEFAULT_BUDGET,
                         max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES) -> Obligation | None:
    """A FAILED obligation with an exact (not abstracted) counterexample found
    in a peeled iteration of the obligation's site(s), or None (see the
    module docstring). `dims`/`block_dim`/`max_array_bytes` fix the launch
    as for the prover;
    `iterations` is a peel count or increasing counts tried in turn while
    the `budget` (z3 resource units) lasts. Called on its own, in a z3
    context of its own (budget.own_context); in a proof, in the proof's."""
    start = rlimit_count()

    def spent() -> bool:
        return rlimit_count() - start >= budget
    specs = [s for s in specs_for(kernel, obligation) if _in_a_loop(kernel, s)]
    rounds = (iterations,) if isinstance(iterations, int) else tuple(iterations)
    done = 0                      # iterations already searched by an earlier round
    for count in rounds:
        if not specs or spent():
            return None
        peeled = peeled_context(kernel, dims, block_dim, count, max_array_bytes)
        # each query gets at most the whole search's work
        peeled.budget.per_check = max(1, min(QUERY_RLIMIT, budget))
        copies = [(spec, copy) for spec in specs for copy in _copies(peeled, spec)
                  if _copy_depth(peeled.sites, copy) > done]
        if not copies:
            return None           # loops not peeled (barriers, shape, budget)
        if peeled.ctx is None:
            return None
        for spec, copy in copies:
            if spent():
                return None
            found = _decide_copy(peeled, spec, copy, spent)
            if found is not None:      # with the second opinions on the peeled queries
                return apply_cross_checks(found, peeled.budget.cross_checks)
        done = count
    return None


def _copy_depth(sites: SiteMap, copy: ObligationSpec) -> int:
    """The latest peeled iteration a copy's site(s) lie in."""
    depth = _depth(sites, copy.site)
    return max(depth, _depth(sites, copy.other)) if copy.other is not None else depth


def _in_a_loop(kernel: Kernel, spec: ObligationSpec) -> bool:
    """Whether a site of `spec` lies in a loop (only those have peeled copies)."""
    sites = [spec.site] + ([spec.other] if spec.other is not None else [])
    return any(site[0] in lp.body for lp in kernel.loops for site in sites)


def _copies(peeled: PeeledContext, spec: ObligationSpec) -> list[ObligationSpec]:
    """Specs of the peeled kernel for the peeled copies of `spec`'s site(s)
    that lie outside every remaining loop (inside one, the encoding havocs
    the loop and the model is abstracted), earliest iterations first (for a
    race, pairs of copies; a site outside every loop pairs as itself, its
    label and position being unchanged by peeling). An invariant's copy is a
    plain assert."""
    sites = peeled.sites
    in_loops = {lbl for lp in peeled.kernel.loops for lbl in lp.body}

    def exact_copies(site):
        return [c for c in sites.copies(site) if c[0] not in in_loops]

    kind = ObligationKind.ASSERT if spec.kind is ObligationKind.INVARIANT else spec.kind
    firsts = exact_copies(spec.site)
    if spec.other is None:
        return [dataclasses.replace(spec, kind=kind, site=s) for s in firsts]
    # a race between a site in a loop and one outside it: the latter as it is
    seconds = exact_copies(spec.other)
    if not firsts and not seconds:
        return []
    firsts, seconds = firsts or [spec.site], seconds or [spec.other]
    pairs = [(a, b) for a in firsts for b in seconds]
    pairs.sort(key=lambda p: (max(_depth(sites, p[0]), _depth(sites, p[1])),
                              _depth(sites, p[0]) + _depth(sites, p[1])))
    return [dataclasses.replace(spec, kind=kind, site=a, other=b)
            for a, b in pairs[:MAX_RACE_PAIRS]]


def _array_hints(launch) -> list:
    return [z3.ULE(s, z3.BitVecVal(SMALL, 32)) for s in launch.shapes.values()]


#: Launch size of the limit probe: the most threads a launch may have.
LIMIT_THREADS = 2 ** 31 - 1


def limit_probes(launch) -> list[list]:
    """Directed probes for wrap-around: the launch at the int32 limit, where
    an index that adds a launch-sized stride (`k += grid_dim * block_dim`)
    wraps past 2**31 - 1 in the first iterations. One block size (the fixed
    one, else 1: each block is one thread, so replay runs a single thread),
    the size the largest multiple of it below 2**31 (any size without shared
    memory or barriers, when the block size is 1 anyway), as the last launch
    dim (the others 1); arrays at most SMALL per dim so the model replays.
    Empty when the launch dims are fixed. A probe is the exact query plus
    equalities, so its models are real ones (only failures come of it)."""
    if launch.fixed_dims is not None:
        return []
    block = int(launch.fixed_block) if launch.fixed_block is not None else 1
    size = LIMIT_THREADS - LIMIT_THREADS % block
    dims = [1] * (len(launch.dims) - 1) + [size]
    return [[launch.block_dim == z3.BitVecVal(block, 32)] +
            [d == z3.BitVecVal(v, 32) for d, v in zip(launch.dims, dims)] + _array_hints(launch)]


@contextmanager
def _with_limit_probes(launch):
    """Temporarily append `limit_probes` to the launch's probes (after the
    small ones: a bug they show keeps its small launch)."""
    extra = limit_probes(launch)
    if not extra:
        yield
        return
    small = launch.probes()
    with _overridden(launch, {"probes": lambda: small + extra}):
        yield


@contextmanager
def _overridden(launch, overrides: dict):
    """Temporarily shadow methods of `launch` by instance attributes."""
    for name, fn in overrides.items():
        setattr(launch, name, fn)
    try:
        yield
    finally:
        for name in overrides:
            delattr(launch, name)


#: Size bound of the looser hints, and the hint sets tried in turn (each a
#: function of the LaunchModel) when a model is too large to replay: the
#: prover's own hints bound the launch, the arrays and the scalars together;
#: a wrap-around bug may need a huge launch or scalar but small arrays.
SMALL = 4096
_HINT_TIERS = (_array_hints,)


#: Arrays with more elements than this are not replayed (proofs.confirming.replay).
MAX_REPLAY_ELEMENTS = 1 << 26


def _replayable(cex) -> bool:
    """Whether replay can build the arrays (a large launch it shrinks or runs
    block by block)."""
    return _size_rank(cex) == 0


def _size_rank(cex) -> int:
    """The number of arrays too large to replay: smaller is better."""
    return sum(1 for s in cex.shapes.values() if math.prod(s) > MAX_REPLAY_ELEMENTS)


@contextmanager
def _hints(launch, tier):
    """Temporarily replace the launch's small-model hints by `tier(launch)`
    and drop its probe launches (small launches were tried already)."""
    if tier is None:
        yield
        return
    with _overridden(launch, {"small_model_hints": lambda *args, **kwargs: tier(launch),
                              "small_model_tiers": lambda: [tier(launch)],
                              "probes": lambda: []}):
        yield


def _exact_failure(ctx: ProofContext, copy: ObligationSpec, tier) -> Obligation | None:
    """The decider's failure on `copy` when its model is exact, else None."""
    try:
        limit = _with_limit_probes(ctx.launch) if tier is None else nullcontext()
        with _hints(ctx.launch, tier), limit:
            ob = DECIDERS[copy.kind](ctx, copy)
    except Exception:                  # the search only ever adds failures: skip it
        return None
    cex = ob.counterexample
    if ob.status is not Status.FAILED or cex is None or cex.abstracted:
        return None
    return ob


def _depth(sites: SiteMap, site) -> int:
    return max((j for _, j in sites.iterations.get(site[0], ())), default=0)


def _decide_copy(peeled: PeeledContext, spec: ObligationSpec, copy: ObligationSpec,
                 spent) -> Obligation | None:
    """Run the decider on one copy; the original obligation, failed with
    the copy's exact counterexample, or None. When the first model is too
    large to replay, the decider runs again under looser size hints (only
    the arrays kept small) while the budget lasts (`spent()` is False)."""
    ctx = peeled.context_for(copy.kind)
    if ctx is None:                    # the peeled kernel cannot be encoded: no search
        return None
    ob = _exact_failure(ctx, copy, None)
    tiers = iter(_HINT_TIERS)
    while ob is not None and not _replayable(ob.counterexample) \
            and not spent():
        tier = next(tiers, None)
        if tier is None:
            break
        again = _exact_failure(ctx, copy, tier)
        if again is not None and _size_rank(again.counterexample) < \
                _size_rank(ob.counterexample):
            ob = again
    if ob is None:
        return None
    cex = ob.counterexample
    assert cex is not None   # _exact_failure keeps only failures with a counterexample
    where = peeled.sites.describe(copy.site[0])
    if copy.other is not None and copy.other[0] != copy.site[0]:
        other = peeled.sites.describe(copy.other[0])
        if other and other != where:
            where = f"{where} and {other}" if where else other
    message = ob.message
    if spec.kind is ObligationKind.INVARIANT:
        message = message.replace("assertion at line", "invariant at line", 1)
    facts = dict(cex.facts)
    if where:
        facts["iteration"] = where
    return Obligation(
        spec.kind, spec.loc, Status.FAILED, f"{message}, in {where}" if where else message,
        counterexample=dataclasses.replace(cex, facts=facts),
        reason=f"found exactly in {where} (loops peeled)" if where else
        "found exactly with loops peeled",
        other_loc=spec.other_loc, spec=spec)


__all__ = ["exact_counterexample", "peeled_context", "specs_for", "PeeledContext",
           "DEFAULT_ITERATIONS", "DEFAULT_ROUNDS",
           "DEFAULT_BUDGET"]
