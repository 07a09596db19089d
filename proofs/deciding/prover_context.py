"""The per-kernel proof context: one launch model, cached thread encodings,
proven loop invariants, and the cached facts of each thread configuration.

Invariant: every fact handed to a solver from here is true of every real
execution (launch facts, Requires, thread identity and its lemmas, proven
invariants, array contracts on launch-time contents of arrays the kernel never
writes, functional reads of never-written arrays, divisions executed earlier
did not divide by zero). Each check gets a fresh solver (z3's bit-blasting
preprocessing is only used by non-incremental solvers).
"""
from __future__ import annotations

import itertools

import z3

from verikern.encoders.smt.encoder import ThreadEncoding, divmod_lemmas
from verikern.encoders.smt.abstraction import NonlinearAbstraction
from verikern.encoders.smt.geometry import DimProducts, MonotoneProducts, thread_geometry_facts
from verikern.encoders.smt.product_bounds import ProductBounds
from verikern.encoders.smt.widened_products import WidenedProducts
from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES, LaunchModel
from verikern.encoders.smt.lemmas import RemainderLemmas
from verikern.encoders.smt.semantics import UnsupportedConstruct
from verikern.encoders.smt.semantics import le, lt, widen
from verikern.mir.cfg import CfgShape, UnstructuredCycle, runs_before
from verikern.mir.facts import (
    accesses_memory, is_barrier, is_int_division, writes_memory,
)
from verikern.mir.nodes import Assert, BinOp, Const, Kernel, RequiresArray
from verikern.mir.types import I32 as _I32

from verikern.proofs.deciding import budget as budgets
from verikern.proofs.deciding.budget import MEGA, charge_encoding, note_analysis
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.content_facts import ContentFacts
from verikern.proofs.analysis.intervals import IntervalMap
from verikern.proofs.deciding.solving import ModelTruths, check, first_model
from verikern.proofs.deciding.houdini import houdini
from verikern.proofs.deciding.integer_relaxation import IntegerRelaxation
from verikern.proofs.deciding.invariants import HoudiniResult, generate_candidates, invariant_facts
from verikern.proofs.analysis.uniformity import varying_values


#: Steps noted (budget.note_analysis) per block, phi and instruction of the kernel for
#: its loop shape (CfgShape: orders, dominators, definitions; measured about 10 us a node).
SHAPE_STEPS_PER_NODE = 10
#: Steps noted per loop invariant candidate generated (its template built and compared).
CANDIDATE_STEPS = 20
#: Work of a concrete-launch admissibility probe (z3 resource units).
ADMISSIBLE_PROBE_RLIMIT = MEGA // 2
#: Work of the quick checks of `_enters_body` (abstract, then exact).
QUICK_RLIMIT = 2 * MEGA
#: Work of the loop-entered check under the launch facts alone (a small query).
LAUNCH_ONLY_RLIMIT = MEGA // 10
#: Work of a probe in the launch of one of the kernel's earlier
#: counterexamples (its sizes and parameters fixed: a small search).
EARLY_PROBE_RLIMIT = MEGA // 2
#: At most this many earlier counterexamples' launches are searched, the latest
#: first (`ProofContext.earlier_launches`): every earlier one made the early
#: probes grow with the square of a kernel's failures (a project kernel of 268
#: obligations asked 2,160 of them, 2 satisfiable, charged 22 million units of
#: its total, which then had none left for its suggestion's re-proof). Of 22
#: project kernels whose total ran out, 6 are proved under their suggestion
#: with 4, 5 with 8 and none with no cap (session 27, benchmarks/warp_projects.py).
EARLY_PROBE_LAUNCHES = 4


class ProofContext:
    """Shared encodings for all obligations of one kernel."""

    def __init__(self, kernel: Kernel, dims, block_dim, budget: SolverSession | None = None,
                 invariants: HoudiniResult | None = None,
                 infeasible: frozenset[str] = frozenset(),
                 max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES):
        """`budget`: the solver work this kernel may spend (a default one when
        None); `max_array_bytes`: the bound on every array's size in bytes
        that the launch model assumes; `infeasible`: blocks no thread copy may reach in any query (for a
        caller that only searches counterexamples in part of the kernel; a
        proof under it covers only the rest); `invariants`: loop invariants
        already proven for these very loops under the same or fewer requires
        (a stronger precondition keeps them invariant), used instead of
        inferring them again."""
        self.kernel = kernel
        self.infeasible = infeasible
        self.budget = budget if budget is not None else SolverSession()
        # the CFG analyses below grow with the kernel: their steps count on its work
        # budget (budget.note_analysis; charged with the next query or encoding)
        note_analysis(SHAPE_STEPS_PER_NODE * sum(1 + len(b.phis) + len(b.instrs)
                                                 for b in kernel.blocks))
        try:
            self.shape = CfgShape(kernel)
        except UnstructuredCycle as e:
            raise UnsupportedConstruct(str(e)) from None
        self._cands: dict | None = None       # the loop invariant candidates (`_candidates`)
        self.launch = LaunchModel(kernel, dims, block_dim, max_array_bytes)
        self.defs = self.shape.defining            # (definitions(kernel), made once)
        self.dom = self.shape.dominators           # (dominators(kernel), made once)
        self.varying = varying_values(kernel, self.dom)
        self.divisions = {}
        for b in kernel.blocks:
            for i, ins in enumerate(b.instrs):
                if is_int_division(ins) and not isinstance(ins.rhs, Const):
                    self.divisions[(b.label, i)] = (ins.rhs, b.label)
        self.asserts = [(b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)
                        if isinstance(ins, Assert)]
        self.contracts: dict[str, list[RequiresArray]] = {}   # array name -> its content contracts
        for _, ins in kernel.instructions():
            if isinstance(ins, RequiresArray):
                self.contracts.setdefault(ins.array.name, []).append(ins)
        self._encodings: dict[tuple, ThreadEncoding] = {}
        self._instructions = sum(1 for _ in kernel.instructions())   # one copy's to encode
        self._solvers: dict[tuple, list] = {}
        self._exit_facts: dict[tuple, list] = {}
        self._prior_access: dict[tuple, list] = {}
        self.nonlinear = NonlinearAbstraction()
        self.relaxation = IntegerRelaxation()    # of the abstract queries, shared by them
        # the models of the kernel's failures so far: a later query they
        # satisfy fails without a search (a read and a write of one element)
        self.failure_models: list[z3.ModelRef] = []
        #: what each of them satisfies, evaluated once (solving.ModelTruths)
        self.failure_truths = ModelTruths()
        # uninit's sample reader states (`uninit._first_sample`), in order
        self.uninit_samples: list[z3.ModelRef] = []
        # multi-dimensional accesses whose every index one query proved in bounds
        self.in_bounds_sites: dict = {}
        # remainder lemmas only where a remainder by a variable can occur (a
        # symbolic `%` in the kernel, or a symbolic-stride congruence candidate)
        self.lemmas = RemainderLemmas() if self._may_use_remainders() else None
        self.dim_products = DimProducts(self.launch.dims, self.launch.size)
        self.monotone = MonotoneProducts(self.launch.dims)
        self.product_bounds = ProductBounds()
        self.widened = WidenedProducts()
        self._abstracted: dict[int, tuple] = {}
        self.A = self.encoding("A")
        self._check_admissible()
        self.content = ContentFacts(kernel, self.shape, self.launch, self.contracts)
        self.content.settle_kept(self)
        self.houdini: HoudiniResult = HoudiniResult({})
        if invariants is not None:
            self.houdini = invariants
        elif kernel.loops:
            cands = self._candidates()
            base = list(self.launch.facts) + self.A.facts + self.single_array_facts(self.A)
            self.houdini = houdini(self.A, self.shape, base, self.budget, cands,
                                   NonlinearAbstraction(), self.launch.probes(), self.lemmas,
                                   self.launch.small_model_tiers())
        if self.content.notes and self.houdini.invariants:
            self.content.settle_kept(self, invariant_facts(self.A, self.houdini.invariants))
        self.intervals = IntervalMap(kernel, self._loops_always_entered(),
                                     budgets.interval_steps(self.budget.per_check))
        note_analysis(self.intervals.steps)

    def _candidates(self) -> dict:
        """The loop invariant candidates (generate_candidates), made once per context;
        its steps (each loop body's instructions scanned, each candidate) noted."""
        cands = self._cands
        if cands is None:
            cands = self._cands = generate_candidates(self.kernel, self.shape)
            note_analysis(sum(1 + len(self.kernel.block(lbl).instrs) for lp in self.kernel.loops
                              for lbl in lp.body) + CANDIDATE_STEPS * sum(map(len, cands.values())))
        return cands

    def _may_use_remainders(self) -> bool:
        if any(isinstance(d := self.kernel.block(lbl).instrs[i], BinOp) and d.op == "mod"
               for lbl, i in self.divisions):   # (the divisions are BinOps)
            return True
        if any(a.kind == "invariant" for _, a in self.kernel.instructions()
               if isinstance(a, Assert)):
            return True
        cands = self._candidates() if self.kernel.loops else {}
        return any(c.kind == "cong_sym" for cs in cands.values() for c in cs)

    def _check_admissible(self) -> None:
        """Refuse to prove anything vacuously: some launch must satisfy the
        requires and the hardware limits."""
        facts = list(self.launch.facts) + self.A.facts
        # scalars of at most 4096 too (the probes bound multi-dim shapes): a
        # model is found without bit-blasting wide products of free values;
        # the full check below still decides when no probe is satisfiable
        small = self.launch.small_model_hints(1 << 31, (1 << 31) - 1, 4096)
        probes = [(facts + probe + small, ADMISSIBLE_PROBE_RLIMIT) for probe in self.launch.probes()]

        def attempts():
            """The probes, and second one thread with every dim and integer scalar 1:
            every size product a constant, so a kernel of many multi-dimensional arrays
            finds its model at once (the probes spent the proof's whole meter on some
            project kernels). Its terms are made only when it is asked: a kernel the
            first probe admits makes the same terms, so the same queries, as before."""
            yield from probes[:1]
            yield facts + self.launch.unit_probe() + small, ADMISSIBLE_PROBE_RLIMIT
            yield from probes[1:]
        if first_model(self.budget, attempts(), "admissible-probe") is not None:
            return                             # a concrete launch: usually quick
        res, _, _ = check(self.budget, facts, None, "admissible")
        if res == z3.unsat:
            raise UnsupportedConstruct(
                "no launch satisfies the kernel's requires together with the hardware "
                "limits (and the fixed --dim/--block-dim); nothing can be proved")
        if res != z3.sat:
            # undecided (the budget ran out, as it can once the kernel's whole work is
            # nearly spent): the requires might admit no launch, and a proof under
            # them would be vacuous -- nothing is claimed
            raise UnsupportedConstruct(
                "the solver budget was exhausted before a launch satisfying the kernel's requires "
                "was found, so a proof could be vacuous; nothing is claimed (raise --budget)")

    def _loops_always_entered(self) -> frozenset[str]:
        """Loops with a barrier whose header, on every entry from outside the
        loop, goes into the body: z3 proved that no entry state (under the
        launch facts, requires, contracts and proven invariants of the other
        loops) takes an exit edge of the header."""
        enc, out, base = self.A, set(), None
        for lp in self.kernel.loops:
            h, hv = lp.header, self.A.havoc.get(lp.header)
            body = set(lp.body)
            if hv is None or not any(is_barrier(ins) for lbl in body
                                     for ins in self.kernel.block(lbl).instrs):
                continue
            exits = [enc.edges[(h, s)] for s in dict.fromkeys(self.kernel.block(h).terminator.successors())
                     if s not in body and (h, s) in enc.edges]
            if not exits:
                continue
            if base is None:
                base = list(self.launch.facts) + enc.facts + self.single_array_facts(enc) + \
                    invariant_facts(enc, self.houdini.invariants)
            if all(self._enters_body(hv, edge, z3.Or(*exits), base)
                   for edge in hv.entry_edges if edge in enc.edges):
                out.add(h)
        return frozenset(out)

    def _enters_body(self, hv, edge, leaving, base) -> bool:
        """Along entry edge `edge`, the header's exit condition is false."""
        pairs = [(hv.reach_var, z3.BoolVal(True))]
        for phi in self.kernel.block(hv.header).phis:
            pairs.append((hv.phis[phi.result.id], self.A.term(dict(phi.incoming)[edge[0]])))
        goal = [self.A.edges[edge], z3.substitute(leaving, *pairs)]
        # the launch facts alone first (fewer hypotheses: unsat still proves
        # it): a trip count such as `k // 16 + 1` needs only its shape's range
        if check(self.budget, NonlinearAbstraction().apply(list(self.launch.facts) + goal),
                 LAUNCH_ONLY_RLIMIT, "loop-entered-launch")[0] == z3.unsat:
            return True
        query = base + goal
        if check(self.budget, NonlinearAbstraction().apply(query), QUICK_RLIMIT,
                 "loop-entered-abstract")[0] == z3.unsat:
            return True
        return check(self.budget, query, QUICK_RLIMIT, "loop-entered")[0] == z3.unsat

    # ------------------------------------------------------------ encodings
    def encoding(self, tag: str, shared_loops: frozenset[str] = frozenset()) -> ThreadEncoding:
        key = (tag, shared_loops)
        enc = self._encodings.get(key)
        if enc is None:
            shared = {}
            for h in shared_loops:
                hv = self.A.havoc.get(h)
                if hv is None:
                    continue
                shared[h] = {pid: var for pid, var in hv.phis.items()
                             if pid not in self.varying}
            suffix = "" if not shared_loops else "s" + str(len(self._encodings))
            enc = ThreadEncoding(self.kernel, self.shape, self.launch, tag + suffix, shared)
            charge_encoding(self._instructions)    # its terms, on the kernel's total
            self._encodings[key] = enc
        return enc

    def pair(self, shared_loops: frozenset[str] | None) -> ThreadEncoding:
        """The second thread copy: independent (None) or sharing the uniform loop
        phis of `shared_loops` with copy A (same iteration)."""
        return self.encoding("B", frozenset(shared_loops or ()))

    # ------------------------------------------------------------ facts
    def in_bounds(self, enc: ThreadEncoding, rec) -> z3.BoolRef:
        return self.within(rec.array, rec.indices[:rec.array.ndim])

    def single_array_facts(self, enc: ThreadEncoding) -> list:
        """all_in_range contracts on loads of arrays the kernel never writes
        or provably keeps in range; ticket facts (`content_facts`)."""
        out = list(self.content.single(self, enc))
        for rec in enc.loads:
            if rec.array.space != "global" or (rec.array.name in self.shape.written
                                               and rec.array.name not in self.content.kept):
                continue
            for c in self.contracts.get(rec.array.name, []):
                if c.kind == "all_in_range":
                    t = rec.array.dtype
                    lo, hi = enc.term(c.lo), enc.term(c.hi)
                    out.append(z3.Implies(z3.And(rec.reach, self.in_bounds(enc, rec)),
                                          z3.And(le(lo, rec.value, t), lt(rec.value, hi, t))))
        return out

    def pair_array_facts(self, encs: list[ThreadEncoding]) -> list:
        """Functional reads of never-written integer arrays; all_distinct;
        tickets and all_sorted (`content_facts`)."""
        out = self.content.pair(self, encs)
        recs = [(e, r) for e in encs for r in e.loads
                if r.array.space == "global" and r.array.name not in self.shape.written
                and r.array.dtype.is_int]
        for (e1, r1), (e2, r2) in itertools.combinations(recs, 2):
            if r1.array.name != r2.array.name:
                continue
            same = z3.And(*[a == b for a, b in zip(r1.indices, r2.indices)])
            guard = z3.And(r1.reach, r2.reach)
            distinct = any(c.kind == "all_distinct"
                           for c in self.contracts.get(r1.array.name, []))
            if distinct:
                guard = z3.And(guard, self.in_bounds(e1, r1), self.in_bounds(e2, r2))
                out.append(z3.Implies(guard, same == (r1.value == r2.value)))
            else:
                out.append(z3.Implies(z3.And(guard, same), r1.value == r2.value))
        return out

    def stable_shared_read_facts(self, encs: list[ThreadEncoding]) -> list:
        """Two threads of one block executing the same shared-memory load in
        the same iteration of every loop with a barrier around it, where no
        store or atomic to that array shares a barrier interval with the
        load, read equal elements as equal values: both run the load in one
        dynamic barrier interval (divergence freedom), in which the array does
        not change."""
        if len(encs) != 2:
            return []
        a, b = encs
        out = []
        for ra in a.loads:
            if ra.array.space != "shared" or not self._stable_shared_load(ra.site):
                continue
            loops = [h for h in self.shape.loop_of.get(ra.site[0], [])
                     if h in self.intervals.loops_with_barrier]
            if any("<iteration>" not in b.havoc[h].shared for h in loops if h in b.havoc):
                continue
            for rb in b.loads:
                if rb.site != ra.site:
                    continue
                same = z3.And(a.ident.block_idx == b.ident.block_idx, ra.reach, rb.reach,
                              *[x == y for x, y in zip(ra.indices, rb.indices)])
                out.append(z3.Implies(same, ra.value == rb.value))
        return out

    def _stable_shared_load(self, site) -> bool:
        name = self.kernel.block(site[0]).instrs[site[1]].array.name
        for b in self.kernel.blocks:
            for i, ins in enumerate(b.instrs):
                if writes_memory(ins) and ins.array.name == name \
                        and ins.array.space == "shared" \
                        and self.intervals.common_starts((b.label, i), site):
                    return False
        return True

    def facts(self, encs: list[ThreadEncoding], full_sites: list) -> list:
        """Every fact of the configuration `encs`, each copy at site
        `full_sites[i]` = (block, position): loops not containing it are taken in
        their leaving iteration, and divisions and asserts executed before it on
        every path did not divide by zero and held (the launch would have
        stopped there)."""
        sites = [s[0] for s in full_sites]
        early = self._pre_contract_facts(encs, full_sites)
        if early is not None:
            return early
        key = tuple(e.tag for e in encs)
        f = self._solvers.get(key)
        if f is None:
            f = list(self.launch.facts)
            for e in encs:
                f += e.facts
                f += [z3.Not(e.reach[lbl]) for lbl in sorted(self.infeasible) if lbl in e.reach]
                f += self.single_array_facts(e)
                f += invariant_facts(e, self.houdini.invariants)
            f += self.pair_array_facts(encs)
            f += self.stable_shared_read_facts(encs)
            f += thread_identity_lemmas(self.launch, encs)
            f += thread_geometry_facts(self.launch, encs)
            f += self.dim_products.for_formulas(f)
            f += self.product_bounds.for_formulas(f)
            f += self.widened.for_formulas(f)
            f += self.monotone.for_formulas(f + _value_terms(encs))
            for e1, e2 in itertools.combinations(encs, 2):
                f += divmod_lemmas(e1, e2)
            if self.lemmas is not None:
                f += self.lemmas.for_formulas(f)
            self._solvers[key] = f
        modes = []
        for e, site in zip(encs, full_sites):
            modes += self.prior_division_facts(e, site)
            modes += self.prior_assert_facts(e, site)
        for e, lbl in zip(encs, sites):
            mkey = (e.tag, lbl)
            m = self._exit_facts.get(mkey)
            if m is None:
                m = self._exit_facts[mkey] = e.exit_mode_facts(lbl)
            modes += m
        return f + modes

    def _pre_contract_facts(self, encs: list[ThreadEncoding], full_sites: list) -> list | None:
        """For a site evaluated while the launch is still checking its
        `requires` (a division inside one), the facts that hold there: the
        launch, each copy's encoding without the requires not yet checked
        (nothing proven from them either: no invariants, no contracts), and
        earlier divisions. None for sites after every requires."""
        late: set[int] = set()
        for e, (lbl, pos) in zip(encs, full_sites):
            late |= {fact.get_id() for (rl, rp), fact in e.requires_at
                     if rl == lbl and rp >= pos}
        if not late:
            return None
        out = list(self.launch.facts)
        for e, site in zip(encs, full_sites):
            out += [f for f in e.facts if f.get_id() not in late]
            out += self.prior_division_facts(e, site)
        out += thread_identity_lemmas(self.launch, encs) + thread_geometry_facts(self.launch, encs)
        out += self.dim_products.for_formulas(out) + self.product_bounds.for_formulas(out)
        out += self.widened.for_formulas(out)
        return out + self.monotone.for_formulas(out + _value_terms(encs))

    def earlier_launches(self, encs: list[ThreadEncoding], sites, prefer=()) -> list[list]:
        """The launch (dims, block size, scalars, shapes) of the kernel's
        latest earlier counterexamples, as equalities, with the threads'
        earlier accesses (and `prefer`) in bounds: where a later violation
        often is (a read and a write of one element). Its shapes are fixed, so
        a model there that faults first would be one replay cannot confirm,
        where another launch has a clean one. Search hints only, like probes:
        each launch once (counterexamples in one launch give the same
        equalities, which z3 interns: a second probe there would ask the
        first one's query again), the latest first, and at most
        EARLY_PROBE_LAUNCHES of them, so that the early probes grow with a
        kernel's failures and not with their square."""
        if not self.failure_models:
            return []
        clean = self.prior_access_hints(encs, list(sites)) + list(prefer)
        seen: set[tuple[int, ...]] = set()
        out = []
        for m in reversed(self.failure_models):
            launch = self.launch.launch_of(m)
            key = tuple(e.get_id() for e in launch)
            if key not in seen:
                seen.add(key)
                out.append(launch + clean)
                if len(out) == EARLY_PROBE_LAUNCHES:
                    break
        return out

    def prior_access_hints(self, encs: list[ThreadEncoding], full_sites: list) -> list:
        """For each copy at its site: the accesses it executed before the
        site on every path (earlier in the block, or in a dominating block)
        were in bounds. Not used for proofs -- only to prefer counterexamples
        whose threads do not stop at an earlier error, so replay can show
        the violation asked about."""
        out = []
        for enc, (lbl, pos) in zip(encs, full_sites):
            key = (enc.tag, lbl, pos)
            hints = self._prior_access.get(key)
            if hints is None:
                hints = []
                for b in self.kernel.blocks:
                    if b.label not in enc.reach:
                        continue
                    for i, ins in enumerate(b.instrs):
                        if accesses_memory(ins) and \
                                self.runs_before((b.label, i), (lbl, pos)):
                            idx = enc.index_terms(ins)[:ins.array.ndim]
                            hints.append(z3.Implies(enc.reach[b.label],
                                                    self.within(ins.array, idx)))
                self._prior_access[key] = hints
            out += hints
        return out

    def within(self, array, indices) -> z3.BoolRef:
        conds = []
        for k, i in enumerate(indices):
            n = widen(self.launch.shape(array, k), _I32)
            conds += [i >= 0, i < n]
        return z3.And(*conds) if conds else z3.BoolVal(True)

    def prior_assert_facts(self, enc: ThreadEncoding, site) -> list:
        """Asserts (and invariants) the copy executed before `site` on every
        path held: a failing one stops the launch before the site (its own
        obligation reports it)."""
        out = []
        for dl, dp in self.asserts:
            if self.runs_before((dl, dp), site) and dl in enc.reach:
                assertion = self.kernel.block(dl).instrs[dp]
                assert isinstance(assertion, Assert)   # self.asserts holds Assert sites
                cond = assertion.cond
                out.append(z3.Implies(enc.reach[dl], enc.term(cond)))
        return out

    def prior_division_facts(self, enc: ThreadEncoding, site) -> list:
        out = []
        for (dl, dp), (op, _) in self.divisions.items():
            if self.runs_before((dl, dp), site) and dl in enc.reach:
                out.append(z3.Implies(enc.reach[dl], enc.term(op) != 0))
        return out

    def runs_before(self, point, site) -> bool:
        """Every path to `site` runs `point` first: earlier in the same block,
        or in a block that dominates the site's."""
        return runs_before(self.dom, point, site)

    def abstract(self, formulas: list) -> list:
        """`formulas` with nonlinear terms abstracted (cached per formula)."""
        out = []
        todo = [f for f in formulas if f.get_id() not in self._abstracted]
        if todo:
            for f, a in zip(todo, self.nonlinear.apply(todo)):
                self._abstracted[f.get_id()] = (f, a)
        for f in formulas:
            out.append(self._abstracted[f.get_id()][1])
        return out


def _value_terms(encs: list[ThreadEncoding]) -> list:
    """Every integer term the copies compute (indices a query names are
    among them), in a fixed order."""
    return [v for e in encs for v in e.val.values() if z3.is_bv(v)]


def thread_identity_lemmas(launch: LaunchModel, encs: list[ThreadEncoding]) -> list:
    """True theorems about thread ids that bit-blasting finds hard: the linear id
    b*B + t determines (b, t), since t < B."""
    out = []
    for e1, e2 in itertools.combinations(encs, 2):
        l1 = e1.ident.block_idx * launch.block_dim + e1.ident.thread_idx
        l2 = e2.ident.block_idx * launch.block_dim + e2.ident.thread_idx
        same = z3.And(e1.ident.block_idx == e2.ident.block_idx,
                      e1.ident.thread_idx == e2.ident.thread_idx)
        out.append((l1 == l2) == same)
        out.append(z3.Implies(z3.ULT(e1.ident.block_idx, e2.ident.block_idx), z3.ULT(l1, l2)))
        out.append(z3.Implies(z3.ULT(e2.ident.block_idx, e1.ident.block_idx), z3.ULT(l2, l1)))
    return out

