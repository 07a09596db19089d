"""Houdini: the greatest mutually inductive subset of candidate invariants.

Invariant: a candidate survives only if z3 proved, assuming exactly the
surviving candidates of loops whose header visits precede the checked one in
every execution (enclosing and earlier loops; for consecution also the loop
itself and the loops nested in it), that it holds on every entry edge
(initiation) and is preserved along every back edge (consecution); see
proofs/deciding/invariants.py for the candidates and `invariant_facts`. Dropping a
candidate is always sound, so any model of a real execution state (a
concrete-launch probe, an exact model, a model of the nonlinear
over-approximation) may drop what it falsifies; only `unsat` keeps one.
Every query runs within the kernel's SolverSession (deterministic work).
"""
from __future__ import annotations

import z3

from verikern.encoders.smt.encoder import ThreadEncoding
from verikern.mir.cfg import CfgShape
from verikern.encoders.smt.lemmas import RemainderLemmas

from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.solving import check
from verikern.proofs.deciding.invariants import (
    HOUDINI_PROBE_RLIMIT, HOUDINI_QUICK_RLIMIT, HOUDINI_SHORT_RLIMIT, HOUDINI_SMALL_RLIMIT,
    Candidate, HintFailure, HintPhase, HoudiniResult, _hint_supported,
)

#: Rounds over all loops before Houdini gives up on a fixpoint (and keeps nothing).
MAX_ROUNDS = 20


class Houdini:
    """One run of Houdini over one thread encoding (see module docstring).
    A removed hint's model is taken within the first satisfiable tier of
    `small_tiers` (replayable launch and array sizes), if any."""

    def __init__(self, enc: ThreadEncoding, shape: CfgShape, base_facts: list,
                 budget: SolverSession, candidates: dict[str, list[Candidate]],
                 abstraction=None, probes: list | None = None,
                 lemmas: RemainderLemmas | None = None, small_tiers: list[list] | None = None):
        self.enc, self.shape, self.base_facts, self.budget = enc, shape, base_facts, budget
        self.abstraction, self.probes = abstraction, probes or []
        self.lemmas, self.small_tiers = lemmas, small_tiers
        self.live = {h: list(cs) for h, cs in candidates.items() if h in enc.havoc}
        self.result = HoudiniResult(self.live)
        for cs in self.live.values():
            for c in list(cs):
                if c.kind == "hint":
                    why = _hint_supported(enc, shape, c)
                    if why is not None:
                        assert c.hint is not None   # a "hint" candidate carries its Assert
                        cs.remove(c)
                        self.result.hint_failures[c.hint] = HintFailure(HintPhase.UNSUPPORTED,
                                                                        None, why)
        self.order = sorted(self.live, key=lambda h: shape.position.get(h, 0))
        self.bodies = {lp.header: set(lp.body) for lp in enc.kernel.loops}
        #: (header, edge, with_self) -> `_query_key` of the check's last unsat
        #: answer: the same key is the same query, so it is not asked again
        self.held: dict[tuple, tuple] = {}

    # ------------------------------------------------------------ facts
    def with_lemmas(self, formulas: list) -> list:
        return formulas + self.lemmas.for_formulas(formulas) if self.lemmas is not None else formulas

    def _assumed(self, header: str, with_self: bool) -> list[str]:
        """The loops whose surviving candidates a check of `header` assumes:
        those whose visits precede `header`'s (and, `with_self`, the loop
        itself and the loops nested in it)."""
        out = []
        for h2 in self.order:
            if h2 == header and not with_self:
                continue
            earlier = self.shape.position[h2] < self.shape.position[header] and h2 != header
            inside = with_self and h2 in self.bodies[header]
            if earlier or inside:
                out.append(h2)
        return out

    def facts_for(self, header: str, with_self: bool) -> list:
        """The surviving candidates of the loops whose visits precede `header`'s."""
        out = []
        for h2 in self._assumed(header, with_self):
            hv = self.enc.havoc[h2]
            out.append(self.enc.loop_facts(h2, [c.build(self.enc, hv.phis) for c in self.live[h2]]))
        return out

    def _query_key(self, header: str, with_self: bool) -> tuple:
        """What a check of `header` asks, given its edge: the surviving
        candidates it assumes and its own. Candidates are only ever removed,
        so their counts name the sets."""
        return tuple(len(self.live[h]) for h in self._assumed(header, with_self)) + \
            (len(self.live[header]),)

    def _still_holds(self, done: tuple, key: tuple) -> bool:
        """The check `done` is answered by its last unsat: the candidates it
        assumes are the same (their counts equal) and its own are those of
        then or fewer -- a subset, so the unsat query implied this one (on an
        edge that does not assume the loop's own candidates; where it does,
        their count is among the assumed ones)."""
        old = self.held.get(done)
        return old is not None and old[:-1] == key[:-1] and key[-1] <= old[-1]

    # ------------------------------------------------------------ queries
    def _solve(self, formulas: list, cap: int | None, purpose: str,
               escalate: bool = True) -> tuple:
        self.result.checks += 1
        res, model, _ = check(self.budget, formulas, cap, purpose, escalate=escalate)
        return res, model

    def _first_model(self, attempts, purpose: str):
        """The model of the first satisfiable (formulas, cap) attempt (built
        lazily, in order), or None."""
        for formulas, cap in attempts:
            res, model = self._solve(formulas, cap, purpose)
            if res == z3.sat:
                return model
        return None

    def probe_model(self, formulas: list):
        """A model under one of the concrete launches (a real execution
        state, so whatever it falsifies may be dropped), or None."""
        return self._first_model([(list(formulas) + list(probe), HOUDINI_PROBE_RLIMIT)
                                  for probe in self.probes], "houdini-probe")

    def small_model(self, formulas: list):
        """A model of `formulas` within the smallest satisfiable tier of
        replayable sizes, or None (concrete launches first: fast)."""
        tiers = self.small_tiers or []
        hint_sets = [probe + hints for hints in tiers for probe in self.probes] + list(tiers)
        return self._first_model(((self.with_lemmas(formulas) + list(hints), HOUDINI_SMALL_RLIMIT)
                                  for hints in hint_sets), "houdini-small-model")

    def exact(self, formulas: list, short: bool = False) -> tuple:
        """(answer, model or None) of the exact query: a probe first, unless
        `short` -- a look within HOUDINI_SHORT_RLIMIT that, undecided without
        the query's lazy facts, is not asked again with them (in the corpus
        that second ask never decided a query, and cost 500k units each)."""
        if not short:
            m = self.probe_model(formulas)
            if m is not None:
                return z3.sat, m
        return self._solve(formulas, HOUDINI_SHORT_RLIMIT if short else None, "houdini-exact",
                           escalate=not short)

    def hint_failed(self, c: Candidate, built, context: list, phase: str, model, edge) -> None:
        """Record why hint `c` fell: its phase and a model (a small one when
        one exists), or UNDECIDED without a model."""
        assert c.hint is not None   # only "hint" candidates are recorded here
        if model is None:
            self.result.hint_failures[c.hint] = HintFailure(HintPhase.UNDECIDED, None, edge[0])
            return
        tiers = self.small_tiers
        replayable = tiers and all(z3.is_true(model.eval(h, model_completion=True))
                                   for h in tiers[-1])
        small = None if replayable else self.small_model(context + [z3.Not(built)])
        self.result.hint_failures[c.hint] = HintFailure(HintPhase(phase), small or model, edge[0])

    # ------------------------------------------------------------ the fixpoint
    @staticmethod
    def _falsified(model, cs, values) -> list[Candidate]:
        return [c for c, b in zip(cs, values) if not z3.is_true(model.eval(b, model_completion=True))]

    def check(self, header: str, edge, state, with_self: bool, phase: str) -> bool:
        """Drop the candidates of `header` that do not hold along `edge`
        (initiation) or are not preserved (consecution); whether any fell."""
        enc, live = self.enc, self.live
        changed = False
        probe_first = bool(self.probes)
        done = (header, edge, with_self)
        if self._still_holds(done, self._query_key(header, with_self)):
            return False            # z3 answered unsat to this query, or a weaker one
        while live[header]:
            cs = live[header]
            built = [c.build(enc, state) for c in cs]
            context = list(self.base_facts) + self.facts_for(header, with_self) + [
                enc.edges.get(edge, z3.BoolVal(False))]
            formulas = self.with_lemmas(context + [z3.Not(z3.And(*built))])
            drop: list[Candidate] = []
            # while candidates fall, a concrete launch usually shows it fastest
            em = self.probe_model(formulas) if probe_first else None
            probe_first = em is not None
            if em is None and self.abstraction is not None:
                self.result.checks += 1
                qres, qmodel, _ = check(self.budget, self.abstraction.apply(formulas),
                                        HOUDINI_QUICK_RLIMIT, "houdini-abstract")
                if qres == z3.unsat:        # sound: nonlinear terms over-approximated
                    self.held[done] = self._query_key(header, with_self)
                    return changed
                if qres == z3.sat:
                    # a short exact look first; failing that, drop what the
                    # abstract model falsifies (dropping is always sound)
                    res, em = self.exact(formulas, short=True)
                    if res == z3.unsat:
                        self.held[done] = self._query_key(header, with_self)
                        return changed
                    if em is None:
                        drop = self._falsified(qmodel, cs, self.abstraction.apply(built))
                        for c, b in zip(cs, built):
                            if c in drop and c.kind == "hint":
                                res, hm = self.exact(self.with_lemmas(context + [z3.Not(b)]))
                                if res == z3.unsat:
                                    drop.remove(c)
                                else:
                                    self.hint_failed(c, b, context, phase, hm, edge)
            if em is not None:
                drop = self._falsified(em, cs, built)
                for c, b in zip(cs, built):
                    if c in drop and c.kind == "hint":
                        self.hint_failed(c, b, context, phase, em, edge)
            if not drop:
                res, m = self.exact(formulas)
                if res == z3.unsat:
                    self.held[done] = self._query_key(header, with_self)
                    return changed
                drop = self._falsified(m, cs, built) if m is not None else list(cs)
                for c, b in zip(cs, built):
                    if c in drop and c.kind == "hint":
                        self.hint_failed(c, b, context, phase, m, edge)
            for c in drop:
                cs.remove(c)
            changed = True
            if not drop:
                break
        return changed

    def run(self) -> HoudiniResult:
        enc = self.enc
        changed, rounds = True, 0
        while changed and rounds < MAX_ROUNDS:
            rounds += 1
            changed = False
            for h in self.order:
                hv = enc.havoc[h]
                lp_phis = enc.kernel.block(h).phis
                for edge in hv.entry_edges:
                    state = {phi.result.id: enc.term(dict(phi.incoming)[edge[0]]) for phi in lp_phis}
                    changed |= self.check(h, edge, state, False, "initiation")
                for edge in hv.latch_edges:
                    if edge not in enc.edges:
                        continue
                    state = {phi.result.id: enc.term(dict(phi.incoming)[edge[0]]) for phi in lp_phis}
                    changed |= self.check(h, edge, state, True, "consecution")
        if changed:           # no fixpoint within the round limit: keep nothing
            for h in self.live:
                self.live[h].clear()
        return self.result


def houdini(enc: ThreadEncoding, shape: CfgShape, base_facts: list, budget: SolverSession,
            candidates: dict[str, list[Candidate]], abstraction=None,
            probes: list | None = None, lemmas: RemainderLemmas | None = None,
            small_tiers: list[list] | None = None) -> HoudiniResult:
    """`Houdini(...).run()`."""
    return Houdini(enc, shape, base_facts, budget, candidates, abstraction, probes, lemmas,
                   small_tiers).run()


__all__ = ["Houdini", "houdini", "MAX_ROUNDS"]
