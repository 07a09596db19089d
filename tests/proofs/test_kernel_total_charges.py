"""The Python work a kernel's total charges (proofs.deciding.budget.charge_query,
charge_compile; issue 26: no kernel over 60 s at the default budget): z3 counts
only its own work, so each solver query and each recompiled pasted copy of the
kernel's file is charged a fixed number of units on the kernel's total -- a count,
never seconds. A charge never lets the total's count pass its limit, nothing is
charged outside a total, and a proof that the charges leave short of work ends
`unknown` naming the total (never `proved`), as a suggestion whose re-proof they
cut short is never proved under."""
from __future__ import annotations

from verikern.app import suggestion
from verikern.app.prove import prove_file
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding import session
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_total, new_total
from verikern.proofs.obligations import KernelStatus

from kernel_total_helpers import MATMUL, UNGUARDED, assert_cut_short_is_unknown


def test_a_query_and_a_recompile_charge_the_total_in_progress_at_most_what_it_has_left():
    fresh_context()
    total = new_total(10 * MEGA)
    with kernel_total(total):
        work.charge_query()
        assert total.spent() == work.QUERY_UNITS
        work.charge_compile(1000, 30)
        assert total.spent() == work.QUERY_UNITS + work.COMPILE_UNITS + 1000 * work.COMPILE_CHARACTER_UNITS \
            + 30 * work.COMPILE_INSTRUCTION_UNITS
    small = new_total(work.QUERY_UNITS + work.QUERY_UNITS // 2)
    with kernel_total(small):
        work.charge_query()
        assert not work.total_exhausted()
        work.charge_query()                   # half a query's worth was left: that much, no more
        assert small.spent() == small.limit and work.total_exhausted()
        work.charge_compile(1, 1)
        assert small.spent() == small.limit
    work.charge_query()                       # outside any total: nothing to charge
    work.charge_compile(5, 5)
    assert work.total_left() is None and small.spent() == small.limit


def _queries_and_units(monkeypatch, query_units: int, **options):
    """(solver queries made, the report) of MATMUL's proof with QUERY_UNITS = `query_units`."""
    made = []
    solver = session.SolverSession.solver

    def counted(self, *args, **kwargs):
        made.append(1)
        return solver(self, *args, **kwargs)

    monkeypatch.setattr(session.SolverSession, "solver", counted)
    monkeypatch.setattr(work, "QUERY_UNITS", query_units)
    (rep,) = prove_file(MATMUL, **options)
    monkeypatch.undo()
    return len(made), rep


def test_every_query_of_a_proof_is_charged_and_a_proof_the_charges_leave_short_is_unknown(monkeypatch):
    queries, charged = _queries_and_units(monkeypatch, work.QUERY_UNITS)
    same, solving = _queries_and_units(monkeypatch, 0)
    assert charged.status is solving.status is KernelStatus.PROVED
    assert queries == same > 20
    # the same queries and z3 units (the total was far from spent), plus a fixed charge for each
    assert charged.units - solving.units == queries * work.QUERY_UNITS
    # a near miss: a total the z3 work alone fits in, the charged work does not
    between = (solving.units + charged.units) / 2 / MEGA
    _, uncharged = _queries_and_units(monkeypatch, 0, kernel_budget=between)
    assert uncharged.status is KernelStatus.PROVED
    assert_cut_short_is_unknown(MATMUL, between, "each solver query and recompiled copy charged")


def test_a_suggestion_whose_recompile_spends_the_total_is_never_proved_under(tmp_path, monkeypatch):
    src = tmp_path / "shift.py"
    src.write_text(UNGUARDED)
    left_at_compile = []
    charge = suggestion.charge_compile

    def recorded(characters: int, instructions: int) -> None:
        left_at_compile.append(work.total_left())
        charge(characters, instructions)

    # a copy as costly as a large project file's (session 21's flat charge): the small file's
    # own charge (budget.charge_compile, by its characters and instructions) is a few units
    compile_units = 3 * MEGA
    monkeypatch.setattr(suggestion, "charge_compile", recorded)
    monkeypatch.setattr(work, "COMPILE_UNITS", compile_units)
    (full,) = prove_file(str(src), suggest=True)
    monkeypatch.undo()
    monkeypatch.setattr(work, "COMPILE_UNITS", compile_units)
    assert full.status is KernelStatus.FAILED and full.proved_under_suggestion is True
    # the pasted copy's compile is charged: a total that ends half-way through that charge
    # leaves its example launch and re-proof nothing, and the contract is not claimed
    (left,) = left_at_compile
    spent_before = work.kernel_total_units(None, work.per_check_units(None)) - left
    cut = (spent_before + compile_units // 2) / MEGA
    runs = [prove_file(str(src), suggest=True, kernel_budget=cut)[0] for _ in range(2)]
    rep = runs[0]
    assert rep.status is KernelStatus.FAILED
    assert [(o.loc, o.status) for o in rep.obligations] == [(o.loc, o.status) for o in full.obligations]
    assert rep.proved_under_suggestion is not True
    assert rep.suggestion_unknown is not None and "raise --kernel-budget" in rep.suggestion_unknown
    assert "recompiled pasted copies" in rep.suggestion_unknown       # what spent it
    assert (runs[1].proved_under_suggestion, runs[1].suggestion_unknown) == \
        (rep.proved_under_suggestion, rep.suggestion_unknown)
    # without that charge the same total proves it under the contract: the charge cut it
    for name in ("COMPILE_UNITS", "COMPILE_CHARACTER_UNITS", "COMPILE_INSTRUCTION_UNITS"):
        monkeypatch.setattr(work, name, 0)
    (uncharged,) = prove_file(str(src), suggest=True, kernel_budget=cut)
    assert uncharged.proved_under_suggestion is True
