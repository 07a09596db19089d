"""The proof context's Python work that grows with the kernel, charged to its total by
count (issue 26: no kernel over 60 s at the default budget; a spent budget ends
`unknown` with the reason): the CFG analyses' steps (budget.note_analysis:
uniformity, loop shape, invariant candidates, the barrier-interval walk) and the
children of z3 terms the fact builders and the abstraction walk
(encoders.smt.terms.take_walked, budget.TERM_UNITS). Both are noted without reading
z3's count and drained into the total at its next charge; they are counts, the same
on every run; and a proof whose other work fits a total that they overrun ends
`unknown` naming the total -- never `proved`, and a near miss is never proved."""
from __future__ import annotations

import z3

from verikern.app.prove import prove_file
from verikern.encoders.smt import terms
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_total, new_total
from verikern.proofs.obligations import KernelStatus, Status

from kernel_total_helpers import MATMUL, UNGUARDED, assert_cut_short_is_unknown, compile_charge


def test_noted_work_is_drained_into_the_next_charge_by_kind_and_forgotten_outside_a_total():
    fresh_context()
    x, y = z3.BitVecs("x y", 32)
    work.note_analysis(7)
    terms.unseen_children(x + y, set())          # noted outside a total: not this kernel's
    total = new_total(10 * MEGA)
    with kernel_total(total):
        work.charge_encoding(1)
        assert total.ledger == {"encoding": work.INSTRUCTION_UNITS}
        work.note_analysis(5)
        work.note_analysis(-3)                   # nothing counted: nothing noted
        walked = terms.unseen_children(x * y + x, set())
        assert len(walked) == 2                  # (x*y, x): the term and its two children looked at
        assert total.spent() == work.INSTRUCTION_UNITS     # noted, not charged yet
        work.charge_encoding(1)
        assert total.ledger == {"encoding": 2 * work.INSTRUCTION_UNITS,
                                "analysis": 5 * work.ANALYSIS_STEP_UNITS,
                                "terms": 3 * work.TERM_UNITS}
        work.charge_encoding(1)                  # drained once: not charged again
        assert total.ledger["analysis"] == 5 * work.ANALYSIS_STEP_UNITS
    small = new_total(work.INSTRUCTION_UNITS + 2 * work.ANALYSIS_STEP_UNITS)
    with kernel_total(small):
        work.note_analysis(1000)
        work.charge_encoding(1)                  # at most what is left, the noted work first
        assert small.spent() == small.limit and work.total_exhausted()
        assert small.ledger == {"analysis": small.limit, "encoding": 0}


def _proved(monkeypatch, path: str, zero: bool = False, **options):
    """`path`'s reports; `zero`: with the analysis and term charges at 0 units."""
    if zero:
        monkeypatch.setattr(work, "ANALYSIS_STEP_UNITS", 0)
        monkeypatch.setattr(work, "TERM_UNITS", 0)
    reports = prove_file(path, **options)
    monkeypatch.undo()
    return reports


def test_the_analysis_and_term_charges_are_counts_and_cut_a_proof_short(monkeypatch):
    """The tiled matmul (loops, barriers: every analysis runs) proves at the default total,
    charged the same units on every run, more than without these charges; a total between
    the two proves it without them and leaves it `unknown`, naming the total, with them
    (the mutant: charges dropped -- the same total would prove it)."""
    charged, again = (prove_file(MATMUL)[0] for _ in range(2))
    (uncharged,) = _proved(monkeypatch, MATMUL, zero=True)
    assert charged.status is again.status is uncharged.status is KernelStatus.PROVED
    assert charged.units == again.units > uncharged.units
    # the report's units are its parts'; compiling the kernel is charged to the total first
    between = ((charged.units + uncharged.units) / 2 + compile_charge(MATMUL)) / MEGA
    (fits,) = _proved(monkeypatch, MATMUL, zero=True, kernel_budget=between)
    assert fits.status is KernelStatus.PROVED
    assert_cut_short_is_unknown(MATMUL, between)


def test_a_near_miss_is_never_proved_whatever_the_total(tmp_path):
    """The unguarded shift fails at the default total (replayed: a real counterexample);
    at totals the analyses and walks spend early or late it is `failed` at the same
    obligation or `unknown` naming the total -- never `proved`, the same twice."""
    src = tmp_path / "shift.py"
    src.write_text(UNGUARDED)
    (full,) = prove_file(str(src))
    assert full.status is KernelStatus.FAILED
    failed = {(o.loc, o.kind) for o in full.obligations if o.status is Status.FAILED}
    assert failed
    for total in (0.001, 0.01, 0.05, full.units / MEGA / 2):
        runs = [prove_file(str(src), kernel_budget=total)[0] for _ in range(2)]
        rep = runs[0]
        assert rep.status is not KernelStatus.PROVED
        assert [(o.loc, o.status, o.reason) for o in rep.obligations] == \
            [(o.loc, o.status, o.reason) for o in runs[1].obligations]
        for o in rep.obligations:
            if o.status is Status.FAILED:
                assert (o.loc, o.kind) in failed
            elif o.status is Status.UNKNOWN:
                assert "the kernel's total work budget was spent" in (o.reason or ""), o.reason
