"""A spent kernel total says what spent it (proofs.deciding.budget_reasons, issue 26: a
kernel that runs out of budget ends `unknown` with the reason): z3's own solving and every
kind of charge on its ledger (budget.KernelTotal.ledger: queries, formulas, evaluations,
thread copies encoded, recompiled copies, cached instances), in units that add up to
what it spent -- counts, the same on every run. A recompiled pasted copy is charged by
what it compiled (its characters and MIR instructions, budget.charge_compile), not per
instance: a file of many instances is not charged as many files."""
from __future__ import annotations

import re
import textwrap

import z3

from verikern.app.suggestion import charge_pasted_compile
from verikern.frontend import compile_source
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import (
    MEGA, charge_query, kernel_part, kernel_total, new_total, reserved_total, separate_work,
)
from verikern.proofs.deciding.budget_reasons import CHARGE_KINDS, spent_on, total_exhausted_text

from kernel_total_helpers import MATMUL, assert_cut_short_is_unknown

#: "<words> N million": an item of a reason's "spent on:" list
_ITEM = re.compile(r"^(.+) ([0-9.e+-]+) million$")


def _spent_on(reason: str) -> dict[str, float]:
    """{what: million units} of the "spent on: ..." part of `reason`."""
    listed = reason.split("; spent on: ", 1)[1].split("; raise", 1)[0]
    items = [_ITEM.match(item) for item in listed.split(", ")]
    assert all(items), listed
    return {m.group(1): float(m.group(2)) for m in items if m}


def test_the_ledger_follows_the_charges_into_parts_and_suggestion_blocks():
    z3.main_ctx()
    whole = reserved_total(40 * MEGA)
    with kernel_part(whole, 2) as share:
        charge_query(work.QUERY_FORMULAS + 100)       # a query of 1,100 formulas
        work.charge_encoding(50)
        with separate_work():                          # a suggestion block: its own total
            work.charge_compile(1_000, 20)
            work.charge_evaluations(7)
            # what the part's share spent before the block, then what the block had and spent
            text = total_exhausted_text()
            assert "this part's share of it was 15 million; spent on: z3's own solving 0 million, " \
                   "solver queries' Python work 0.01 million, formulas asserted past a query's first " \
                   "thousand 0.001 million, thread copies encoded 0.005 million; its suggestion work " \
                   "then had 25 million" in text, text
            assert text.count("; spent on: ") == 2 and "recompiled pasted copies 0.257 million" in text
        assert share.drew and "past its share" not in spent_on(share)     # it spent 0.27 million
        assert share.ledger == {
            "queries": work.QUERY_UNITS, "formulas": 100 * work.FORMULA_UNITS,
            "encoding": 50 * work.INSTRUCTION_UNITS, "evaluations": 7 * work.EVALUATION_UNITS,
            "compiles": work.COMPILE_UNITS + 1_000 * work.COMPILE_CHARACTER_UNITS + 20 * work.COMPILE_INSTRUCTION_UNITS}
    assert whole.ledger == share.ledger
    assert sum(whole.ledger.values()) == whole.spent()     # no z3 check ran: all of it is charges
    text = spent_on(whole)
    assert text.startswith("; spent on: z3's own solving 0 million, solver queries' Python work 0.01 million")
    assert [words for words in _spent_on(text)] == ["z3's own solving"] + [
        CHARGE_KINDS[k] for k in CHARGE_KINDS if whole.ledger.get(k)]
    plain = new_total(MEGA)
    with kernel_total(plain):
        plain.charge(2 * MEGA)                          # a cached instance's recorded units
        assert "cached instances 2 million" in total_exhausted_text()
        assert "this part's share" not in total_exhausted_text()


def test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up():
    """MATMUL at a total of 1.5 million units: `unknown`, and every undecided obligation's
    reason lists z3's own solving and the charges, which add up to what the total spent
    (to the three digits shown), the same on every run (assert_cut_short_is_unknown)."""
    rep = assert_cut_short_is_unknown(MATMUL, 1.5, "; spent on: z3's own solving",
                                      "solver queries' Python work", "thread copies encoded")
    reasons = {o.reason for o in rep.obligations if "spent on:" in (o.reason or "")}
    for reason in reasons:
        items = _spent_on(reason)
        assert set(items) <= {"z3's own solving", *CHARGE_KINDS.values()}
        assert items["solver queries' Python work"] > 0 and items["z3's own solving"] > 0
        # the total ran out: what it lists, with what compiling took of it before its parts,
        # comes to its 1.5 million (z3 may pass it a little)
        compiled = re.search(r"compiling the kernel took ([0-9.e+-]+) million of it", reason)
        assert compiled is not None, reason
        assert 1.5 * 0.99 <= sum(items.values()) + float(compiled.group(1)) <= 1.5 + 0.1, reason


GENERIC = textwrap.dedent('''\
    from typing import Any

    import warp as wp


    @wp.kernel
    def scale(x: wp.array(dtype=Any), y: wp.array(dtype=Any), n: int):
        i = wp.tid()
        if i < n:
            y[i] = x[i] + x[i]
    ''')


def test_a_recompiled_copy_is_charged_by_its_characters_and_instructions_not_per_instance():
    text = GENERIC + "".join(f"\n\nwp.overload(scale, [wp.array(dtype=wp.{t}), wp.array(dtype=wp.{t}), int])\n"
                             for t in ("int8", "int16", "int32", "int64", "float32", "float64"))
    module = compile_source(text, "g.py")
    instances = [k for k in module.kernels if k.mir is not None]
    assert len(instances) >= 6
    # an independent count of the MIR instructions: every block's, blocks listed by the MIR text
    instructions = sum(len(b.instrs) for k in module.kernels for mir in (k.mir, getattr(k, "opaque", None))
                       if mir is not None for b in mir.blocks)
    total = new_total(100 * MEGA)
    z3.main_ctx()
    with kernel_total(total):
        charge_pasted_compile(text, module)
    expected = work.COMPILE_UNITS + len(text) * work.COMPILE_CHARACTER_UNITS + \
        instructions * work.COMPILE_INSTRUCTION_UNITS
    assert total.ledger == {"compiles": expected} and total.spent() == expected
    # far under session 21's flat 3 million + 60,000 per instance for a file this small
    assert expected < 3 * MEGA
