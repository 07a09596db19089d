"""The prover's one solve strategy; every query goes through here.

Invariant: PROVED only from an `unsat` answer -- of the query under the
nonlinear over-approximation (sound: every model of the exact query gives one
of the abstraction) or of the exact query; FAILED only with a model of the
exact query (a concrete-launch probe is the exact query plus equalities that
fix the launch, so its models are models of the exact query; refinements only
add constraints to a satisfiable query, so theirs are too); anything else is
UNKNOWN with the reason (`check` answers for the whole query even when it
first leaves its lazy facts out). Every solver comes from the kernel's SolverSession
(deterministic work), and queries run in a fixed order.

The strategy, cheapest first: (1) the abstract query (bit-blasted on a
small budget, then its integer relaxation, which over-approximates it
again -- linear proofs that cost millions of units bit-blasted take
thousands there -- then, after the early probes, bit-blasted on the whole
cap; the relaxation goes first once it has proved two of the proof
context's queries that the small budget left undecided, and more than it
missed: `IntegerRelaxation.goes_first`), (2) each concrete-launch
probe in turn (before that whole-cap retry when the relaxation is
satisfiable: a probe's model is one of the exact query, which the
abstraction then cannot refute), (3) the exact query; a model found by (2) or (3) is then
refined (`refine(model, probe)` lists stricter attempts, e.g. small sizes
that replay fast) and the first satisfiable attempt's model is kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import z3

from verikern.encoders.smt.launch import LazyFact
from verikern.proofs.deciding.budget import MEGA, charge_evaluations, unknown_reason
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.integer_relaxation import IntegerRelaxation
from verikern.proofs.obligations import Status

#: The share of a check's work its first attempt without the lazy facts gets.
LAZY_SHARE = 4
#: The work an integer relaxation may spend (linear proofs take thousands of
#: units there, and millions bit-blasted; a miss costs at most this).
RELAXATION_RLIMIT = MEGA
#: The first try at an abstract query, bit-blasted (the corpus decides all
#: but a handful of its abstract queries within it).
ABSTRACT_FIRST_RLIMIT = MEGA // 2
#: (constraints, work limit or None for the check's whole budget)
Attempt = tuple[list, "int | None"]


@dataclass
class Answer:
    status: Status
    model: z3.ModelRef | None = None
    reason: str | None = None


def check(budget: SolverSession, formulas: Sequence, cap: int | None = None,
          purpose: str = "check", logic: str = "QF_BV",
          escalate: bool = True) -> tuple[z3.CheckSatResult, z3.ModelRef | None, z3.Solver]:
    """One query: (answer, model when sat, the solver).

    Lazy facts (encoders.smt.launch.LazyFact) are left out at first, with
    1/LAZY_SHARE of the check's work: `unsat` without them is `unsat` with
    them, and a model that satisfies every one of them (evaluated with model
    completion, which also fixes the values it completes) is a model of the
    whole query. Those a model breaks are added and the query asked again (a
    fresh solver, `purpose` + "+lazy", the check's whole work), at most once
    per lazy fact; when the first attempt is undecided (a proof that needs
    them), the whole query is asked -- unless `escalate` is False (a short
    look, whose miss costs only that first attempt), which then answers
    `unknown`. So the answer is always the whole query's."""
    lazy = [f for f in formulas if isinstance(f, LazyFact)]
    eager = [f for f in formulas if not isinstance(f, LazyFact)]
    first = max(1, budget.limit(cap) // LAZY_SHARE) if lazy else cap
    while True:
        s = budget.solver(first, purpose, logic, formulas=len(eager))
        s.add_all(eager)
        res = s.check()
        if res == z3.unknown and lazy and escalate:
            eager, lazy, first = eager + lazy, [], cap
            purpose = purpose if purpose.endswith("+lazy") else purpose + "+lazy"
            continue
        if res != z3.sat:
            return res, None, s
        model = s.model()
        charge_evaluations(len(lazy))
        broken = [f for f in lazy if not z3.is_true(model.eval(f, model_completion=True))]
        if not broken:
            return res, model, s
        eager += broken
        lazy = [f for f in lazy if all(not f.eq(b) for b in broken)]
        first = max(1, budget.limit(cap) // LAZY_SHARE) if lazy else cap
        purpose = purpose if purpose.endswith("+lazy") else purpose + "+lazy"


def _abstract_quick(budget: SolverSession, abstract: list, cap: int | None,
                    relaxation: IntegerRelaxation | None,
                    purpose: str) -> tuple[bool | None, z3.Solver, bool]:
    """Whether the abstract query is unsat: True when it is, bit-blasted
    within ABSTRACT_FIRST_RLIMIT units (almost every abstract query is
    decided there) or by its integer relaxation; False when it is not (sat,
    or undecided within `cap`); None when undecided so far, with a retry
    within `cap` left. Also the first attempt's solver, which the caller
    keeps until the retry (z3 reuses a freed solver's memory, and the
    retry's search depends on it: keeping it makes the retry's cost the
    one measured, see docs/PROVER.md "Determinism"), and whether the
    integer relaxation was satisfiable (a hint that the query has a model:
    `decide` then asks the concrete probes before the retry)."""
    first = min(budget.limit(cap), ABSTRACT_FIRST_RLIMIT)
    early = None
    if relaxation is not None and relaxation.goes_first and first < budget.limit(cap):
        # the relaxation has proved this context's queries where bit-blasting did not
        early = relaxed_check(budget, abstract, purpose + "abstract-lia", relaxation)
        if early == z3.unsat:
            relaxation.wins += 1
            return True, None, False
    res, _, solver = check(budget, abstract, first, purpose + "abstract")
    if res != z3.unknown or first >= budget.limit(cap):
        if early is not None and relaxation is not None and res == z3.unsat:
            relaxation.misses += 1
        return res == z3.unsat, solver, False
    if relaxation is None:
        return None, solver, False
    relaxed = early if early is not None else \
        relaxed_check(budget, abstract, purpose + "abstract-lia", relaxation)
    if relaxed == z3.unsat:
        relaxation.wins += 1
        return True, solver, False
    return None, solver, relaxed == z3.sat


def relaxed_check(budget: SolverSession, formulas: Sequence, purpose: str,
                  relaxation: IntegerRelaxation) -> z3.CheckSatResult:
    """z3's answer on the integer relaxation of `formulas` (an
    over-approximation, see integer_relaxation) within RELAXATION_RLIMIT
    units: `unsat` proves `formulas` unsat; `sat` proves nothing. Lazy
    facts are left out (fewer facts: still an over-approximation)."""
    relaxed = relaxation.relax([f for f in formulas if not isinstance(f, LazyFact)])
    res, _, _ = check(budget, relaxed, RELAXATION_RLIMIT, purpose, logic="QF_LIA")
    return res


def relaxed_unsat(budget: SolverSession, formulas: Sequence, purpose: str,
                  relaxation: IntegerRelaxation) -> bool:
    """`formulas` are unsat because their integer relaxation is (`relaxed_check`)."""
    return relaxed_check(budget, formulas, purpose, relaxation) == z3.unsat


def satisfies(model: z3.ModelRef, formulas: Iterable) -> bool:
    """Every formula evaluates to true in `model` (completed where it leaves
    a constant free): then `model` is a model of `formulas`. Each formula
    evaluated is charged to the kernel's total (budget.charge_evaluations)."""
    evaluated = 0
    try:
        for f in formulas:
            evaluated += 1
            if not z3.is_true(model.eval(f, model_completion=True)):
                return False
        return True
    finally:
        charge_evaluations(evaluated)


class ModelTruths:
    """`satisfies` for models asked about the same formulas again and again
    (a kernel's earlier counterexamples, against each later query's facts):
    each formula is evaluated in a model once, then its truth is remembered.
    The same answers as `satisfies`, in the same order of evaluation: model
    completion fixes what it completes at the first evaluation, so a later
    one would give the same value. The memo keeps its models and formulas,
    so their ids stay their own; only the evaluations made are charged to
    the kernel's total (budget.charge_evaluations). Mutable on purpose: it
    only grows."""

    def __init__(self) -> None:
        self._truths: dict[int, tuple[z3.ModelRef, dict[int, tuple[z3.ExprRef, bool]]]] = {}

    def satisfies(self, model: z3.ModelRef, formulas: Iterable) -> bool:
        entry = self._truths.get(id(model))
        if entry is None or entry[0] is not model:
            entry = self._truths[id(model)] = (model, {})
        known = entry[1]
        evaluated = 0
        try:
            for f in formulas:
                fid = f.get_id()
                seen = known.get(fid)
                if seen is None:
                    evaluated += 1
                    seen = known[fid] = (f, z3.is_true(model.eval(f, model_completion=True)))
                if not seen[1]:
                    return False
            return True
        finally:
            charge_evaluations(evaluated)


def first_model(budget: SolverSession, attempts: Iterable[Attempt], purpose: str,
                known: z3.ModelRef | None = None, satisfied: Sequence = (),
                known_small: bool = False) -> z3.ModelRef | None:
    """The model of the first attempt z3 finds satisfiable within its limit, or None.
    `known` is a model of the formulas `satisfied`: an attempt with the
    check's whole budget (cap None) that `known` also satisfies (its other
    constraints evaluate to true) is satisfiable, and `known` is returned for
    it without a check. Attempts with a small cap are still asked (their
    models are the smaller, clearer counterexamples: `i = 0`, not `i = 25`)
    unless `known_small`: `known` was found in the launch and sizes of an
    earlier counterexample, itself already refined."""
    given = {id(f) for f in satisfied}
    for constraints, cap in attempts:
        if known is not None and (cap is None or known_small) and \
                satisfies(known, (c for c in constraints if id(c) not in given)):
            return known
        res, model, _ = check(budget, constraints, cap, purpose)
        if res == z3.sat:
            return model
    return None


def decide(budget: SolverSession, exact: list, *, abstract: list | None = None,
           abstract_cap: int | None = None, probes: Sequence[list] = (),
           probe_cap: int | None = None, early_probes: Sequence[list] = (),
           early_cap: int | None = None,
           refine: Callable[[z3.ModelRef, list | None], list[Attempt]] | None = None,
           relaxation: IntegerRelaxation | None = None, purpose: str = "") -> Answer:
    """PROVED when `abstract` (an over-approximation of `exact`) or `exact`
    is unsat; FAILED with a model of `exact` (from a probe, else the exact
    query; refined by the first satisfiable attempt of `refine(model, probe)`);
    UNKNOWN with the reason otherwise (see the module docstring).
    `early_probes` (within `early_cap` each) are asked once the quick
    abstract attempts have not proved the query, before its retry on the
    whole cap (when they left it undecided) and before `probes`: a model of
    one makes those moot. When the integer relaxation is satisfiable,
    `probes` are asked before that retry too (the answer is the same: a
    probe's model satisfies `exact`, so the retry could not prove it)."""
    quick, _first, likely_sat = (None, None, False) if abstract is None else \
        _abstract_quick(budget, abstract, abstract_cap, relaxation, purpose)
    if quick:
        return Answer(Status.PROVED)
    found = _probed(budget, exact, early_probes, early_cap, refine, purpose, "early-probe")
    if found is not None:           # cheap, and a model makes the rest moot
        return found
    if likely_sat:
        # the relaxation has a model: a concrete probe's model (of `exact`,
        # so the abstraction cannot be unsat) makes the retry moot
        found = _probed(budget, exact, probes, probe_cap, refine, purpose, "probe")
        if found is not None:
            return found
    if quick is None and abstract is not None:
        res, _, _ = check(budget, abstract, abstract_cap, purpose + "abstract")
        if res == z3.unsat:
            return Answer(Status.PROVED)
    del _first
    if not likely_sat:
        found = _probed(budget, exact, probes, probe_cap, refine, purpose, "probe")
        if found is not None:
            return found
    res, model, solver = check(budget, exact, None, purpose + "exact")
    if res == z3.unsat:
        return Answer(Status.PROVED)
    if res == z3.sat:
        return Answer(Status.FAILED, _refined(budget, model, exact, None, refine, purpose))
    return Answer(Status.UNKNOWN, reason=unknown_reason(solver))


def _probed(budget: SolverSession, exact: list, probes: Sequence[list], cap: int | None,
            refine, purpose: str, kind: str) -> Answer | None:
    """FAILED with the refined model of the first of `probes` (each the
    exact query plus equalities) z3 finds satisfiable within `cap`, or None."""
    for probe in probes:
        query = list(exact) + list(probe)
        res, model, _ = check(budget, query, cap, purpose + kind)
        if res == z3.sat:
            return Answer(Status.FAILED, _refined(budget, model, query, probe, refine, purpose,
                                                  small=kind == "early-probe"))
    return None


def _refined(budget, model, satisfied, probe, refine, purpose, small=False) -> z3.ModelRef:
    """The first satisfiable refinement's model; `model` (of `satisfied`)
    itself when it already satisfies that refinement, or none is (`small`:
    `first_model`'s `known_small`)."""
    if refine is None:
        return model
    return first_model(budget, refine(model, probe), purpose + "smaller-model",
                       known=model, satisfied=satisfied, known_small=small) or model


__all__ = ["Answer", "Attempt", "ModelTruths", "check", "first_model", "decide", "satisfies"]
