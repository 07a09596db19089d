"""The Python work that grows with what a proof builds, charged to the kernel's
total by count (issue 26: no kernel over 60 s at the default budget): each
formula a query asserts past the first QUERY_FORMULAS (budget.FORMULA_UNITS),
each formula evaluated in a model (EVALUATION_UNITS) and each instruction of
each thread copy encoded (INSTRUCTION_UNITS). The charges are counts, the same on every run; they never
take the total past its limit; and a proof whose z3 work fits a total that
these charges overrun ends `unknown` naming the total -- never `proved`, and
never "proved under the suggestion"."""
from __future__ import annotations

from verikern.app.compile_budget import compile_budget
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_total, new_total
from verikern.proofs.obligations import KernelStatus, Status

from kernel_total_helpers import MATMUL, UNGUARDED, assert_cut_short_is_unknown, compile_charge
CHARGES = ("FORMULA_UNITS", "EVALUATION_UNITS", "INSTRUCTION_UNITS")


def test_each_term_charge_is_its_count_times_its_units_and_at_most_what_is_left():
    fresh_context()
    total = new_total(10 * MEGA)
    with kernel_total(total):
        work.charge_query(work.QUERY_FORMULAS)            # the formulas QUERY_UNITS pays for
        assert total.spent() == work.QUERY_UNITS
        work.charge_query(work.QUERY_FORMULAS + 7)
        assert total.spent() == 2 * work.QUERY_UNITS + 7 * work.FORMULA_UNITS
        work.charge_evaluations(5)
        work.charge_encoding(11)
        charged = 2 * work.QUERY_UNITS + 7 * work.FORMULA_UNITS + 5 * work.EVALUATION_UNITS + \
            11 * work.INSTRUCTION_UNITS
        assert total.spent() == charged
        work.charge_evaluations(0)            # nothing evaluated or encoded: nothing charged
        work.charge_encoding(-3)
        assert total.spent() == charged
    one = 2 * work.INSTRUCTION_UNITS
    small = new_total(one + one // 2)
    with kernel_total(small):
        work.charge_encoding(2)
        assert not work.total_exhausted()
        work.charge_encoding(2)               # one instruction's worth was left: that much
        assert small.spent() == small.limit and work.total_exhausted()
        work.charge_evaluations(4)
        work.charge_query(work.QUERY_FORMULAS + 9)
        assert small.spent() == small.limit
    work.charge_encoding(5)                   # outside any total: nothing to charge
    work.charge_evaluations(5)
    assert work.total_left() is None


def _recorded(monkeypatch, path: str, zero: bool = False, **options):
    """(the report, the counts each new charge was asked for, in order) of `path`'s
    proof; `zero`: with those charges at 0 units."""
    asked: list[tuple[str, int]] = []
    for name in ("charge_evaluations", "charge_encoding"):
        real = getattr(work, name)

        def counted(n, _name=name, _real=real):
            asked.append((_name, n))
            _real(n)
        monkeypatch.setattr(work, name, counted)
    import verikern.proofs.deciding.prover_context as context
    import verikern.proofs.deciding.solving as solving
    monkeypatch.setattr(context, "charge_encoding", work.charge_encoding)
    monkeypatch.setattr(solving, "charge_evaluations", work.charge_evaluations)
    if zero:
        for name in CHARGES:
            monkeypatch.setattr(work, name, 0)
    reports = prove_file(path, **options)
    monkeypatch.undo()
    return reports, asked


def test_the_term_charges_are_counts_the_same_on_every_run_and_cut_a_proof_short(monkeypatch):
    """MATMUL proves at the default total; each of its runs asks the same charges
    (the counts, in order); a total between its units without the term charges and
    with them proves it without them and leaves it `unknown`, naming the total, with
    them -- twice the same."""
    (charged,), asked = _recorded(monkeypatch, MATMUL)
    (again,), asked_again = _recorded(monkeypatch, MATMUL)
    (uncharged,), asked_zero = _recorded(monkeypatch, MATMUL, zero=True)
    assert charged.status is again.status is uncharged.status is KernelStatus.PROVED
    assert asked == asked_again == asked_zero
    assert {name for name, _ in asked} == {"charge_evaluations", "charge_encoding"}
    assert charged.units == again.units > uncharged.units
    encoded = sum(n for name, n in asked if name == "charge_encoding")
    evaluated = sum(n for name, n in asked if name == "charge_evaluations")
    assert encoded > 0
    # the formula charges are the rest of the difference (the same queries: far from the total)
    rest = charged.units - uncharged.units - encoded * work.INSTRUCTION_UNITS - \
        evaluated * work.EVALUATION_UNITS
    assert rest >= 0 and rest % work.FORMULA_UNITS == 0     # queries past QUERY_FORMULAS
    # the report's units are its parts'; compiling the kernel is charged to the total first
    between = ((charged.units + uncharged.units) / 2 + compile_charge(MATMUL)) / MEGA
    (fits,), _ = _recorded(monkeypatch, MATMUL, zero=True, kernel_budget=between)
    assert fits.status is KernelStatus.PROVED
    assert_cut_short_is_unknown(MATMUL, between)


def test_a_suggestion_the_term_charges_leave_short_is_never_proved_under(tmp_path, monkeypatch):
    """The unguarded shift is proved under its suggested contract at the default
    total; at the units that took without the term charges (and a quarter of
    what they add), the charged run is not: the suggestion (or an obligation) ends `unknown`
    naming the total, and never `proved under` -- twice the same."""
    src = tmp_path / "shift.py"
    src.write_text(UNGUARDED)
    (full,), _ = _recorded(monkeypatch, str(src), suggest=True)
    assert full.status is KernelStatus.FAILED and full.proved_under_suggestion is True
    (free,), _ = _recorded(monkeypatch, str(src), zero=True, suggest=True)
    assert free.proved_under_suggestion is True
    spent, charged = free.units, full.units       # the whole kernel's: proof, search, re-proof
    assert charged > spent
    # the report's units are its parts'; compiling the kernel is charged to the total first
    (compiled,) = compile_file(str(src), **compile_budget(None)).work.values()
    cut = (spent + (charged - spent) // 4 + work.COMPILE_UNIT_WEIGHT * compiled.spent) / MEGA
    (fits,), _ = _recorded(monkeypatch, str(src), zero=True, suggest=True, kernel_budget=cut)
    assert fits.proved_under_suggestion is True
    runs = [prove_file(str(src), suggest=True, kernel_budget=cut)[0] for _ in range(2)]
    rep = runs[0]
    assert rep.proved_under_suggestion is not True
    assert rep.status is not KernelStatus.PROVED
    named = [rep.suggestion_unknown or ""] + [o.reason or "" for o in rep.obligations
                                             if o.status is Status.UNKNOWN]
    assert any("raise --kernel-budget" in text for text in named)
    assert (runs[1].proved_under_suggestion, runs[1].suggestion_unknown,
            [(o.loc, o.status, o.reason) for o in runs[1].obligations]) == \
        (rep.proved_under_suggestion, rep.suggestion_unknown,
         [(o.loc, o.status, o.reason) for o in rep.obligations])

