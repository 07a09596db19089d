"""A kernel's compile budget in `prove` (proofs.deciding.budget.compile_units, COMPILE_CHECKS
times --budget; issue 26: no kernel over 60 s, a kernel past its budget ends `unknown`).

A kernel whose compile runs past its budget is `unknown` with what was counted and how to
raise it, the same on every run; a larger --budget compiles it; a generic kernel cut after
some instances proves those and is never `proved` as a whole (its other instances are
`unknown`); what compiling took shows in the ledger of a spent total."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_source
from verikern.cli.prove import EXIT_PROVED, EXIT_UNKNOWN, exit_code
from verikern.frontend import compile_source
from verikern.mir import work
from verikern.proofs.deciding import budget
from verikern.proofs.obligations import KernelStatus

from shared_helpers import BENCHMARKS, import_file

SOURCE = '''
import warp as wp
from typing import Any

@wp.kernel
def copy(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    if i < a.shape[0] and i < b.shape[0]:
        b[i] = a[i]

@wp.kernel
def double(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = a[i] * 2.0
'''


def _limit(monkeypatch, units: int) -> None:
    """A compile budget of `units` at the default --budget (10 million units per check)."""
    monkeypatch.setattr(budget, "COMPILE_CHECKS", units / budget.DEFAULT_CHECK_RLIMIT)
    monkeypatch.setattr(budget, "MIN_COMPILE_UNITS", 0)


def _verdicts(reports) -> list:
    return [(r.kernel, r.status, r.error, [(o.loc, o.status, o.reason) for o in r.obligations]) for r in reports]


def test_the_default_compile_budget_is_two_checks_and_budget_raises_it_above_a_floor():
    assert budget.compile_units(None) == 20 * budget.MEGA
    assert budget.compile_units(20) == 40 * budget.MEGA
    assert budget.compile_units(0.001) == budget.MIN_COMPILE_UNITS == 10 * budget.MEGA


def test_a_kernel_past_its_compile_budget_is_unknown_with_the_reason_the_same_twice(monkeypatch):
    meter = compile_source(SOURCE, "k.py").work["double"]
    reading = meter.counts["reading"] * work.READ_UNITS     # the file read once: no configurations
    _limit(monkeypatch, reading + (meter.spent - reading) // 2)
    runs = [prove_source(SOURCE, "k.py", kernel="double") for _ in range(2)]
    (rep,) = runs[0]
    assert rep.status is KernelStatus.UNKNOWN and not rep.obligations
    assert rep.error.startswith("k.py:12:1: warning: unknown: double was not compiled whole")
    assert "expressions typed" in rep.error and "ran out before the kernel reached MIR" in rep.error
    assert "hint: raise --budget: a kernel's compile budget is" in rep.error
    assert _verdicts(runs[0]) == _verdicts(runs[1])
    # twice the --budget: twice the compile budget, which is more than the compile needs
    (more,) = prove_source(SOURCE, "k.py", kernel="double", budget=20)
    assert more.status is KernelStatus.PROVED


def test_a_generic_kernel_cut_after_some_instances_is_never_proved(monkeypatch):
    whole = prove_source(SOURCE, "k.py", kernel="copy")
    assert exit_code(whole) == EXIT_PROVED       # every instance (and `copy[...]`) proved as written
    full = compile_source(SOURCE, "k.py").work["copy"].spent
    _limit(monkeypatch, full - 1)                # one unit short: the last instance is not compiled
    cut = prove_source(SOURCE, "k.py", kernel="copy")
    proved = [r for r in cut if r.status is KernelStatus.PROVED]
    spent = [r for r in cut if r.status is KernelStatus.UNKNOWN]
    assert proved and spent and len(proved) + len(spent) == len(cut)
    assert all("copy was not compiled whole" in r.error and " instances reached MIR" in r.error for r in spent)
    # the kernel as a whole: not proved, by the CLI's exit status and by the harness's verdict
    assert exit_code(cut) == EXIT_UNKNOWN
    records = [{"kernel": r.kernel, "status": r.status.value, "error": r.error or "",
                "obligations": [{"status": o.status.value} for o in r.obligations]} for r in cut]
    bench = import_file(BENCHMARKS / "warp_projects.py", "warp_projects", keep=False)
    outcome = bench.combine(bench.KernelSite("p", ".", "k.py", 5, "copy"), records)
    assert outcome.outcome == "unknown" and outcome.compiled_instances == len(proved) - ("copy[...]" in {
        r.kernel for r in proved})


def test_what_compiling_took_shows_in_a_spent_totals_ledger():
    (rep,) = prove_source(SOURCE, "k.py", kernel="double", kernel_budget=0.001)
    assert rep.status is KernelStatus.UNKNOWN
    reasons = {o.reason for o in rep.obligations if o.reason}
    assert reasons and all("before its parts, compiling the kernel took" in r for r in reasons), reasons
    assert all("(0.001 million z3 units for the whole kernel" in r for r in reasons), reasons


@pytest.mark.parametrize("units", [1, 300])
def test_a_tiny_compile_budget_never_proves(monkeypatch, units):
    _limit(monkeypatch, units)
    reports = prove_source(SOURCE, "k.py")
    assert reports and all(r.status is KernelStatus.UNKNOWN for r in reports)


def test_the_harness_compile_only_child_reports_a_spent_budget_unknown_with_no_instance(monkeypatch, tmp_path):
    bench = import_file(BENCHMARKS / "warp_projects.py", "warp_projects", keep=False)
    path = tmp_path / "k.py"
    path.write_text(SOURCE)
    _limit(monkeypatch, 300)
    records = bench.compile_only_report(str(path), ["copy", "double"])["kernels"]
    assert [(r["kernel"], r["status"]) for r in records] == [("copy[...]", "unknown"), ("double", "unknown")]
    assert all(bench.COMPILE_BUDGET_SPENT in r["error"] for r in records)
    outcome = bench.combine(bench.KernelSite("p", str(tmp_path), "k.py", 12, "double"), records[1:])
    assert (outcome.outcome, outcome.compiled_instances) == ("unknown", 0)
