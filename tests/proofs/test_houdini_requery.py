"""Houdini does not ask a query z3 already answered `unsat`: a check of a
loop's initiation or consecution is the same query whenever the surviving
candidates it assumes and its own are the same (candidates are only ever
removed), so it is skipped then; so is an initiation whose own candidates
are fewer than at its unsat (a subset: the unsat query implied it). The
fixpoint must not change: the same invariants survive, with fewer solver
checks."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_file
from verikern.proofs.deciding import houdini as houdini_mod
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS


class _NothingHeld(dict):
    """A `held` map that never remembers: every check is asked."""

    def __setitem__(self, key, value) -> None:
        """Forget the answer: the check is asked again next time."""


def _fixpoint(monkeypatch, name: str, remember: bool):
    runs: list = []
    original = houdini_mod.Houdini.run

    def run(self):
        if not remember:
            self.held = _NothingHeld()
        result = original(self)
        runs.append(({h: sorted((c.kind, c.phi_id, c.step, str(c.bound)) for c in cs)
                       for h, cs in result.invariants.items()}, result.checks))
        return result

    monkeypatch.setattr(houdini_mod.Houdini, "run", run)
    path = CORPUS / name
    report = prove_mir(compile_file(str(path)).kernels[0].mir, file=str(path))
    monkeypatch.undo()
    return runs, [(o.kind, o.loc.line, o.loc.col, o.status) for o in report.obligations]


@pytest.mark.parametrize("name", ["ok_loop_barrier_uniform_trip_count.py",
                                  "ok_range_step_bounded_length.py"])
def test_a_query_answered_unsat_is_not_asked_again_and_the_fixpoint_stays(monkeypatch, name):
    skipped, verdicts = _fixpoint(monkeypatch, name, remember=True)
    asked, verdicts_asked = _fixpoint(monkeypatch, name, remember=False)
    assert [inv for inv, _ in skipped] == [inv for inv, _ in asked]
    assert any(inv for inv, _ in skipped)                 # invariants survive at all
    assert sum(n for _, n in skipped) < sum(n for _, n in asked)
    assert verdicts == verdicts_asked


def test_an_initiation_with_fewer_candidates_than_its_unsat_is_not_asked_again():
    """`Houdini._still_holds`: the same assumed candidates and a subset of
    its own is answered; more assumed candidates removed (or on a consecution
    edge, where the loop's own are assumed, fewer own) is asked."""
    h = houdini_mod.Houdini.__new__(houdini_mod.Houdini)
    h.held = {("loop1", ("entry0", "loop1"), False): (24,),
              ("loop1", ("latch", "loop1"), True): (24, 5, 24),
              ("loop8", ("endif", "loop8"), False): (24, 15)}
    assert h._still_holds(("loop1", ("entry0", "loop1"), False), (6,))
    assert h._still_holds(("loop1", ("entry0", "loop1"), False), (24,))
    assert not h._still_holds(("loop1", ("latch", "loop1"), True), (6, 5, 6))
    assert h._still_holds(("loop1", ("latch", "loop1"), True), (24, 5, 24))
    assert not h._still_holds(("loop8", ("endif", "loop8"), False), (6, 12))
    assert h._still_holds(("loop8", ("endif", "loop8"), False), (24, 12))
    assert not h._still_holds(("loop8", ("other", "loop8"), False), (24, 12))

