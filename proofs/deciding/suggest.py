"""Suggested contracts: when a kernel fails, the weakest conjunction of
contract templates (proofs.deciding.contract_templates) under which every
failed obligation is proved, as a ready-to-paste `@vk.requires(lambda ...)`.

The search is counterexample-guided: each round adds, for every obligation
still failing, its best-ranked candidate that the obligation's latest
counterexample violates (and that keeps the conjunction satisfiable), then
re-decides only those obligations on the kernel with the conjunction added
as `Requires` at its entry. Then it minimises: drops every conjunct the
proved obligations do not need and weakens `==` to `<=` where that still
proves them (a conjunct is only re-checked against the obligations whose
proof used it).

Invariants:
- a suggestion is not a proof: nothing here changes a kernel's verdict;
- unknown obligations that carry a possible counterexample (one replay did
  not confirm: an index from a float, clamped at a grid length) are searched
  like failed ones; the others are only re-decided under the result;
- `Suggestion.proved` is True only when every failed obligation was proved
  (z3 `unsat` through the ordinary deciders) on the kernel extended with
  exactly the suggested contract, which the ProofContext refuses when no
  launch satisfies it (never vacuous), and every obligation that was
  unknown too; obligations already proved stay proved under a stronger
  precondition (it only removes launches);
- the search spends at most `budget_units` z3 resource units (counted, not
  timed; a round that starts within the budget may overshoot it by its
  last check); out of budget, it reports what it has -- except the final
  check of the obligations the proof left unknown, which, when the search's
  own units are spent, gets a kernel's work of its own (budget.separate_work,
  within the kernel's total), as the pasted contract's re-proof does;
- an unknown obligation whose access repeats the element of a searched one's
  that runs first on every path (proofs.deciding.covered) is proved with it:
  it is not checked again;
- obligations the rounds left undecided (waiting for an upstream load when
  the rounds stopped) are decided under the final conjunction before
  `proved` is set.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import z3

from verikern.mir.nodes import Kernel
from verikern.proofs.deciding.budget import (
    fresh_context, own_context, rlimit_count, separate_work, total_exhausted, total_exhausted_text,
    total_left,
)
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.contract_asserts import asserted_atoms
from verikern.proofs.deciding.contract_atoms import Atom, Term, holds, shift_spec, with_requires
from verikern.proofs.deciding.contract_templates import candidates, upstream, walker
from verikern.proofs.deciding.covered import CoveringAccesses
from verikern.proofs.obligations import ObligationKind, ObligationSpec, Status
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.prover import DECIDERS

LOG = logging.getLogger("verikern.proofs.suggest")
#: At most this many search rounds (each adds at least one conjunct).
MAX_ROUNDS = 12


@dataclass(frozen=True)
class Suggestion:
    """A suggested contract: `requires` are its conjuncts as source text
    (the JSON's `suggested_requires`), `decorators` the lines to paste above
    the kernel, `proved` whether every failed and unknown obligation is
    proved under it, `units` the z3 resource units the search spent;
    `unknown`: why the search stopped before deciding whether it proves
    them (the kernel's total ran out: budget.total_exhausted_text), else None."""

    requires: tuple[str, ...]
    decorators: tuple[str, ...]
    proved: bool
    units: int
    unknown: str | None = None


def decorator_lines(kernel: Kernel, atoms) -> tuple[str, ...]:
    """`@vk.requires(lambda ...)` lines stating `atoms`: the scalar ones
    joined with `and` in one, each array contract in its own (docs/LANGUAGE.md
    section 5); lambda parameters are the kernel parameters named, in the
    kernel's order."""
    order = [p.name for p in kernel.params]
    scalar = [a for a in atoms if not a.is_array_contract]
    groups = ([scalar] if scalar else []) + [[a] for a in atoms if a.is_array_contract]
    out = []
    for group in groups:
        used = {n for a in group for n in a.names()}
        params = ", ".join(n for n in order if n in used)
        body = " and ".join(a.text(kernel.launch_ndim) for a in group)
        out.append(f"@vk.requires(lambda {params}: {body})")
    return tuple(out)


class _Search:
    """Decides chosen obligations of a kernel under candidate contracts,
    within one z3 work budget."""

    def __init__(self, kernel: Kernel, dims, block_dim, per_check: int, budget_units: int,
                 options: dict, label: str = ""):
        self.kernel, self.dims, self.block_dim = kernel, dims, block_dim
        self.label = label or f"{kernel.name}."
        self.per_check = per_check
        self.budget_units = budget_units
        self.options = options          # more ProofContext keywords (the launch model's)
        self.spent = 0
        self.houdini = None             # the kernel's own loop invariants, once inferred

    def _budget(self) -> SolverSession:
        return SolverSession(per_check=max(1, min(self.per_check, self.left)), total=self.left,
                            label=f"{self.label}suggest.")

    def _invariants(self):
        """The loop invariants of the kernel without any suggested conjunct:
        invariant under every stronger precondition too, so each extended
        kernel reuses them instead of inferring its own."""

        if self.houdini is None and self.kernel.loops:
            start = rlimit_count()
            try:
                self.houdini = ProofContext(self.kernel, self.dims, self.block_dim, self._budget(),
                                            **self.options).houdini
            finally:
                self.spent += rlimit_count() - start
        return self.houdini

    @property
    def left(self) -> int:
        """The search's own units left, at most what the kernel's total has left."""
        total = total_left()
        own = self.budget_units - self.spent
        return own if total is None else min(own, total)

    def decide(self, atoms, specs, fail_fast: bool = False, skip=None) -> dict | None:
        """spec -> the Obligation decided under `atoms`, in order (fail_fast:
        stop at the first one not proved; `skip(spec, decided_so_far)`: leave
        a spec out); None when the budget is spent."""

        if self.left <= 0:
            return None
        extended, n = with_requires(self.kernel, atoms)
        entry = self.kernel.blocks[0].label
        out: dict = {}
        try:
            invariants = self._invariants()
        except Exception as err:                 # no invariants: no proof of anything
            LOG.debug("suggest: no loop invariants: %s", err)
            return out
        start = rlimit_count()
        try:
            budget = self._budget()
            ctx = ProofContext(extended, self.dims, self.block_dim, budget, invariants=invariants,
                               **self.options)
            LOG.debug("suggest: proof context under %d conjuncts: %d z3 units", len(atoms),
                      rlimit_count() - start)
            for spec in specs:
                if self.spent + rlimit_count() - start >= self.budget_units or total_exhausted():
                    break
                if skip is not None and skip(spec, out):
                    continue
                budget.topic = "suggest."
                try:
                    ob = DECIDERS[spec.kind](ctx, shift_spec(spec, entry, n))
                except Exception as err:          # an undecided check proves nothing
                    LOG.debug("suggest: %s: %s", spec, err)
                    ob = None
                out[spec] = ob
                if fail_fast and (ob is None or ob.status is not Status.PROVED):
                    break
        except Exception as err:                 # inadmissible or unsupported: nothing proved
            LOG.debug("suggest: no proof context under %s: %s", atoms, err)
        finally:
            self.spent += rlimit_count() - start
        return out

    def proves(self, atoms, specs) -> bool | None:
        """Every spec proved under `atoms`, deciding them in order and
        stopping at the first that is not (None: the budget ran out first)."""
        if not specs:
            return True
        res = self.decide(atoms, specs, fail_fast=True)
        if res is None:
            return None
        if any(ob is None or ob.status is not Status.PROVED for ob in res.values()):
            return False
        return True if len(res) == len(specs) else None


def _satisfiable(atoms) -> bool:
    """The comparison atoms can hold together (over mathematical integers,
    lengths >= 0, launch dims >= 1, int32 ranges): a quick filter; the
    proof context rechecks with machine arithmetic and the kernel's own
    requires."""
    s = z3.Solver()
    s.set("rlimit", 200_000)
    names: dict = {}

    def val(t: Term):
        if t.kind == "product":        # int64: its factors' product does not wrap in a filter
            total = z3.IntVal(1)
            for f in t.factors:
                total = total * val(f)
            return total
        if t.kind == "const":
            return z3.IntVal(t.index * t.scale)
        key = (t.kind, t.name, t.index)
        if key not in names:
            v = names[key] = z3.Int(f"{t.kind}_{t.name}_{t.index}")
            s.add(v >= (1 if t.kind == "launch" else 0 if t.kind == "shape" else -(2 ** 31)))
            s.add(v < 2 ** 31)
        return names[key] * t.scale

    ops = {"eq": lambda a, b: a == b, "le": lambda a, b: a <= b, "lt": lambda a, b: a < b,
           "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "ne": lambda a, b: a != b}
    for a in atoms:
        if not a.is_array_contract:
            s.add(ops[a.op](val(a.lhs), val(a.rhs)))
    return s.check() != z3.unsat


def _pick(cands: list[Atom], cex, chosen: list[Atom]) -> Atom | None:
    """The best-ranked candidate not chosen yet that `cex` violates (or that
    it says nothing about) and that keeps the conjunction satisfiable."""
    have = {a.key() for a in chosen}
    for a in cands:
        if a.key() in have or holds(a, cex) is True:
            continue
        if _satisfiable(chosen + [a]):
            return a
    return None


def _pick_relaxing(cands: list[Atom], cex, chosen: list[Atom]) -> tuple[Atom | None, list[Atom]]:
    """When every candidate clashes with the conjuncts `chosen`: the best one
    that does not clash with them once every `==` is weakened to `<=`
    (`off.shape[0] == vk.launch_dim()`, picked for `off[s]`, clashes with
    `vk.launch_dim() < off.shape[0]` for `off[s + 1]`), with the weakened
    conjuncts; else (None, chosen). Only ranks: the result is decided as any."""
    relaxed = [x.weaker or x for x in chosen]
    if relaxed == chosen:
        return None, chosen
    have = {x.key() for x in chosen + relaxed}
    for a in cands:
        if a.key() not in have and holds(a, cex) is not True and _satisfiable(relaxed + [a]):
            return a, relaxed
    return None, chosen


@own_context()
def suggest_contract(kernel: Kernel, obligations, *, dims=None, block_dim=None,
                     per_check: int, budget_units: int, label: str = "",
                     **context_options) -> Suggestion | None:
    """The suggested contract for `kernel`, whose decided `obligations`
    (with their specs, in any order) include failed ones; None when no
    template conjunction proves any of them (see the module docstring).
    `per_check`: z3 units per check, as in the proof; `context_options`:
    further ProofContext keywords the proof used; `label`: the proof's query
    name prefix (FILE.KERNEL.), which the search's queries extend. The
    search runs in a z3 context of its own (fresh_context), with the cyclic
    collector paused also when called outside a proof (budget.own_context)."""
    failed = [ob for ob in obligations if ob.status is Status.FAILED and ob.spec is not None]
    if not failed:
        return None
    # an unknown obligation with a (possible) counterexample -- a model found
    # through an abstraction that replay did not confirm, such as an index made
    # from a float and clamped at a length -- is searched like a failed one;
    # one without (the solver's budget ran out) is only checked at the end
    maybe = [ob for ob in obligations if ob.status is Status.UNKNOWN and ob.spec is not None
             and ob.counterexample is not None]
    unknown = [ob.spec for ob in obligations if ob.status is Status.UNKNOWN and ob.spec is not None
               and all(ob is not m for m in maybe)]
    fresh_context()
    w = walker(kernel)
    cands: dict[ObligationSpec, list[Atom]] = {}
    reads: dict[ObligationSpec, frozenset] = {}
    for ob in failed + maybe:
        try:
            cands[ob.spec] = asserted_atoms(kernel, ob.spec, w) + candidates(kernel, ob.spec, w)
            reads[ob.spec] = upstream(kernel, ob.spec, w)
        except Exception as err:   # a site this generator cannot read has no candidates
            LOG.debug("suggest: no candidates for %s: %s", ob.spec, err)
            cands[ob.spec], reads[ob.spec] = [], frozenset()
    if not any(cands[ob.spec] for ob in failed):
        return None
    unknown += [ob.spec for ob in maybe if not cands[ob.spec]]
    # an obligation of an access repeating one that runs first on every path (one left
    # undecided because that one failed: prover._covered) is proved whenever that one
    # is, so it needs no check of its own once every searched obligation is proved
    covers, searched = CoveringAccesses.of(kernel), {CoveringAccesses.key(s): s for s in cands}
    unknown = [s for s in unknown if searched.get(covers.covering(s)) is None]
    for ob in maybe:
        if not cands[ob.spec]:
            del cands[ob.spec]
    # a failed bounds obligation of a load an obligation's index reads comes first:
    # until it is proved, the loaded value (so the obligation) is unconstrained
    ups = {s: [t for t in cands if t.kind is ObligationKind.BOUNDS and t.site in reads[s]]
           for s in cands}
    search = _Search(kernel, dims, block_dim, per_check, budget_units, context_options, label)
    cex = {ob.spec: ob.counterexample for ob in failed + maybe}
    chosen: list[Atom] = []
    basis: dict[ObligationSpec, frozenset] = {}     # proved spec -> the atoms it was proved under
    why: dict = {}                                   # atom key -> the counterexample it excludes
    pending = sorted(cands, key=lambda s: (len(ups[s]), s.loc.line, s.loc.col))
    stale: set = set()                               # not decided under the latest conjunction

    def waits(spec, decided) -> bool:
        return any(t not in basis and (decided.get(t) is None or decided[t].status is not Status.PROVED)
                   for t in ups[spec])

    for _ in range(MAX_ROUNDS):
        picks: list[Atom] = []
        reopened: list[ObligationSpec] = []
        for spec in pending:
            if spec in stale:
                continue
            own = {a.key(): a.family for a in cands[spec]}
            a = _pick(cands[spec], cex.get(spec), chosen + picks)
            if a is None:
                a, weakened = _pick_relaxing(cands[spec], cex.get(spec), chosen + picks)
                if a is not None:     # an `==` weakened: what was proved under it is decided again
                    changed = {x.key() for x in chosen + picks} - {x.key() for x in weakened}
                    chosen, picks = weakened[:len(chosen)], weakened[len(chosen):]
                    reopened += [t for t, b in basis.items() if b & changed]
                    for t in reopened:
                        basis.pop(t, None)
            if a is None or any(p.key() in own and own[p.key()] <= a.family
                                and holds(p, cex.get(spec)) is not True for p in picks):
                continue                  # a conjunct picked this round (no worse ranked) may do
            picks.append(a)
            why[a.key()] = cex.get(spec)
            for c in a.companions:          # picked together: either alone proves nothing
                if all(c.key() != x.key() for x in chosen + picks) and _satisfiable(chosen + picks + [c]):
                    picks.append(c)
        pending += [t for t in dict.fromkeys(reopened) if t not in pending]
        if not picks and not stale:
            break
        # no new conjunct, but obligations that waited for an upstream load last
        # round: decide them under the same conjunction (their load may be proved now)
        proved_before = len(basis)
        chosen += picks
        res = search.decide(chosen, pending, skip=waits)
        if res is None:
            break
        LOG.debug("suggest: round picks %s: %s (%d units spent)", [a.text(kernel.launch_ndim) for a in picks],
                  {f"{s.loc.line}:{s.loc.col}": (ob.status.value if ob is not None else None)
                   for s, ob in res.items()}, search.spent)
        stale = {s for s in pending if s not in res}
        for spec, ob in res.items():
            if ob is not None and ob.status is Status.PROVED:
                basis[spec] = frozenset(a.key() for a in chosen)
            else:
                cex[spec] = ob.counterexample if ob is not None else None
        pending = [s for s in pending if s not in basis]
        if not pending or search.left <= 0 or (not picks and len(basis) == proved_before):
            break
    if not basis:
        LOG.info("%s: no suggested contract (%d z3 units)", kernel.name, search.spent)
        return None
    chosen = _minimise(search, chosen, basis, why, cands)
    chosen = [a for a in chosen if not _implied(a, chosen)]
    if pending and not total_exhausted():
        # obligations the rounds left undecided under the final conjunction (one that
        # waited for an upstream load, a round that stopped early): decided under it
        # now, by the same deciders, each one's proof a proof under the contract
        pending = [] if search.proves(chosen, pending) is True else pending
    proved = not pending
    if proved and unknown:
        verdict = search.proves(chosen, unknown)
        if verdict is None and not total_exhausted():
            verdict = _unknown_decided_apart(search, chosen, unknown)
        proved = verdict is True
    chosen.sort(key=lambda a: (a.is_array_contract, _param_rank(kernel, a), a.text(kernel.launch_ndim)))
    LOG.info("%s: suggested %s (%s, %d z3 units)", kernel.name,
             [a.text(kernel.launch_ndim) for a in chosen], "proved" if proved else "not proved",
             search.spent)
    return Suggestion(tuple(a.text(kernel.launch_ndim) for a in chosen),
                      decorator_lines(kernel, chosen), proved, search.spent,
                      None if proved or not total_exhausted() else total_exhausted_text())


def _unknown_decided_apart(search: _Search, chosen: list[Atom], unknown: list) -> bool | None:
    """The obligations the proof left unknown, decided under the final
    conjunction with work of their own (budget.separate_work, as the re-proof
    of the pasted contract gets) when the search spent its own on proving the
    failed ones: True only when z3 proves each (the ordinary deciders on the
    extended kernel), None when that work runs out too."""
    with separate_work(search.per_check) as own:
        apart = _Search(search.kernel, search.dims, search.block_dim, search.per_check, own.limit,
                        search.options, search.label)
        apart.houdini = search.houdini
        return apart.proves(chosen, unknown)


def _implied(a: Atom, chosen: list[Atom]) -> bool:
    """`a` is `x <= y` and another conjunct says `x < y` or `x == y` (in machine
    arithmetic too), or `a` is `x > c` and another says `x > d` for literals
    d > c (`output.shape[3] > 2` beside `output.shape[3] > 4`): dropping it
    changes nothing the contract admits."""
    if a.op == "gt" and a.rhs.kind == "const" and a.rhs.scale == 1 and a.rhs.offset == 0:
        return any(b is not a and b.op == "gt" and b.lhs == a.lhs and b.rhs.kind == "const"
                   and not b.rhs.wide and not a.rhs.wide and b.rhs.scale == 1 and b.rhs.offset == 0
                   and b.rhs.index > a.rhs.index for b in chosen)
    if a.op != "le":
        return False
    return any(b is not a and ((b.op == "lt" and (b.lhs, b.rhs) == (a.lhs, a.rhs))
                               or (b.op == "eq" and {b.lhs, b.rhs} == {a.lhs, a.rhs})) for b in chosen)


def _param_rank(kernel: Kernel, a: Atom) -> int:
    order = {p.name: i for i, p in enumerate(kernel.params)}
    return min((order.get(n, len(order)) for n in a.names()), default=len(order))


def _needing(a: Atom, basis: dict, cands: dict) -> list:
    """The proved specs whose proof used `a`, those it was a candidate for
    first (the likeliest to fail without it: checks stop at the first)."""
    need = [s for s, b in basis.items() if a.key() in b]
    return sorted(need, key=lambda s: all(c.key() != a.key() for c in cands.get(s, ())))


def _minimise(search: _Search, chosen: list[Atom], basis: dict, why: dict,
              cands: dict) -> list[Atom]:
    """Drop the conjuncts no proof needs, then each one the proofs that used
    it do without, then weaken `==` to `<=` where the proofs still go
    through; `basis` is updated so that every proved spec's atoms stay a
    subset of the result. A drop is not tried when the counterexample that
    made the conjunct be chosen satisfies all the others (it would come
    back): that only keeps a suggestion stronger, never makes it wrong."""
    chosen = [a for a in chosen if any(a.key() in b for b in basis.values())]
    for a in sorted(chosen, key=lambda a: -a.family):
        trial = [x for x in chosen if x is not a]
        if not trial:
            break
        seen = why.get(a.key())
        if seen is not None and not seen.abstracted and all(holds(x, seen) is True for x in trial):
            continue
        need = _needing(a, basis, cands)
        ok = search.proves(trial, need)
        if ok is None:
            return chosen
        if ok:
            chosen = trial
            for s in need:
                basis[s] = frozenset(x.key() for x in trial)
    weak = [a.weaker or a for a in chosen]
    if len([a for a in chosen if a.weaker is not None]) > 1 and _satisfiable(weak):
        ok = search.proves(weak, list(basis))          # every `==` weakened at once
        if ok is None:
            return chosen
        if ok:
            return weak
    for a in list(chosen):
        if a.weaker is None or not _satisfiable([x for x in chosen if x is not a] + [a.weaker]):
            continue
        trial = [a.weaker if x is a else x for x in chosen]
        need = _needing(a, basis, cands)
        ok = search.proves(trial, need)
        if ok is None:
            return chosen
        if ok:
            chosen = trial
            for s in need:
                basis[s] = frozenset(x.key() for x in trial)
    return chosen
