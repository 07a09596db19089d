"""Compiling a kernel is counted in its total (`--kernel-budget`, since session 25):
`KernelTotal.charge_compiling` charges COMPILE_UNIT_WEIGHT z3 units for each compile
unit (verikern.mir.work) within the total's limit, so the total bounds the kernel's
whole time, compile included, and the proof has what compiling left. A total that
compiling spent decides nothing: every obligation is `unknown` naming the budget and
the option, never `proved`."""
from __future__ import annotations

from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.app.compile_budget import compile_budget
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import MEGA, new_total, reserved_total
from verikern.proofs.obligations import KernelStatus, Status

from shared_helpers import CORPUS

MATMUL = str(CORPUS / "ok_matmul_tiled.py")


def test_compiling_is_charged_within_the_total_at_its_weight():
    total = new_total(10 * MEGA)
    total.charge_compiling(MEGA)
    assert total.limit == 10 * MEGA                                 # no longer raised: within it
    assert total.spent() == total.ledger["compiling"] == total.compiled == work.COMPILE_UNIT_WEIGHT * MEGA
    assert total.left() == 10 * MEGA - work.COMPILE_UNIT_WEIGHT * MEGA
    total.charge_compiling(10 * MEGA)                               # never past the limit
    assert total.spent() == 10 * MEGA and total.left() == 0
    # the suggestions' reserve is a share of what compiling left
    held = reserved_total(8 * MEGA)
    held.charge_compiling(MEGA)
    assert held.held == int((8 - work.COMPILE_UNIT_WEIGHT) * MEGA * work.SUGGESTION_RESERVE)


def test_a_total_that_compiling_spent_decides_nothing_and_says_so():
    (compiled,) = compile_file(MATMUL, **compile_budget(None)).work.values()
    assert compiled.spent > 0
    assert prove_file(MATMUL)[0].status is KernelStatus.PROVED
    # exactly what compiling is charged: nothing is left to prove with
    (rep,) = prove_file(MATMUL, kernel_budget=work.COMPILE_UNIT_WEIGHT * compiled.spent / MEGA)
    assert rep.status is KernelStatus.UNKNOWN and rep.units == 0
    assert rep.obligations and all(o.status is Status.UNKNOWN for o in rep.obligations)
    for o in rep.obligations:
        assert "total work budget was spent" in o.reason and "raise --kernel-budget" in o.reason
        assert "before its parts, compiling the kernel took" in o.reason
