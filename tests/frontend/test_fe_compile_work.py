"""A kernel's compile work, counted and bounded (verikern.mir.work, frontend/compile_budget.py;
issue 26: no kernel over 60 s, a kernel past its budget ends `unknown` with the reason).

The meter counts expressions typed, MIR instructions built and instructions walked by the
verifier and the passes -- never seconds --, so the same source gives the same count; a
meter with a limit stops the kernel's compile before the work it was charged for, keeps
the instances that reached MIR and marks the rest `budget_spent`, never compiled."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_source, driver, lower_kernel
from verikern.frontend.scan import imported_funcs, module_reads
from verikern.mir import work
from verikern.mir.work import CompileBudgetSpent, CompileMeter, metering

GENERIC = '''
import warp as wp
from typing import Any

@wp.func
def twice(x: Any):
    return x + x

@wp.kernel
def scale(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    if i < a.shape[0] and i < b.shape[0]:
        b[i] = twice(a[i])

@wp.kernel
def plain(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = twice(a[i])
'''


def test_a_meter_counts_by_kind_and_stops_past_its_limit_before_the_work():
    meter = CompileMeter(100)
    with metering(meter):
        work.charge(60, "typing")
        work.charge(40, "building", 2)          # exactly the limit: not past it
        assert (meter.spent, meter.counts, meter.exhausted) == (100, {"typing": 1, "building": 2}, False)
        with pytest.raises(CompileBudgetSpent) as stopped:
            work.charge(1, "passes")
    assert stopped.value.meter is meter and meter.exhausted and meter.spent == 101
    assert meter.spent_text() == ("1 expressions typed, 2 MIR instructions built, 1 MIR instructions walked "
                                  "by the verifier and passes, 0.000101 million units in all")
    work.charge(10**9, "typing")        # outside `metering`: nothing counted, nothing raised
    assert meter.spent == 101 and work.spent_now() == 0
    assert not isinstance(stopped.value, Exception)    # the checker's `except Exception` never takes it


def test_a_walk_is_charged_by_instructions_phis_and_blocks_and_an_unlimited_meter_only_counts():
    kernel = compile_source(GENERIC, "g.py").kernel("plain").mir
    size = sum(len(b.instrs) + len(b.phis) + 1 for b in kernel.blocks)
    meter = CompileMeter()
    with metering(meter):
        work.charge_walk(kernel)
    assert meter.counts == {"passes": size} and meter.spent == work.PASS_UNITS * size
    hir = compile_source(GENERIC, "g.py").kernel("plain").hir
    with metering(meter):
        lower_kernel(hir)        # building, verifying, the pipeline's passes: all counted, never stopped
    assert meter.counts["building"] > 0 and meter.counts["passes"] > 2 * size and not meter.exhausted


def _spent(module) -> dict:
    return {name: (m.spent, m.counts) for name, m in module.work.items()}


def test_the_count_is_the_same_on_every_run_and_alone_or_after_another_kernel():
    whole = compile_source(GENERIC, "g.py")
    assert _spent(whole) == _spent(compile_source(GENERIC, "g.py"))
    # `twice` is checked once per typing and reused: a kernel compiled alone is charged
    # what it is charged after the others (the reuse charges the recorded cost)
    # (the units, not the kinds: alone, `twice` is typed, not reused)
    alone = compile_source(GENERIC, "g.py", kernels=["plain"])
    assert alone.work["plain"].spent == whole.work["plain"].spent
    assert alone.work["plain"].counts != whole.work["plain"].counts
    assert all(k.ok for k in whole.kernels if not k.unknown) and not any(k.budget_spent for k in whole.kernels)


def test_a_kernel_past_its_budget_keeps_what_reached_mir_and_says_what_was_counted():
    full = compile_source(GENERIC, "g.py").work["scale"].spent
    cut = compile_source(GENERIC, "g.py", work=full - 1, work_hint="raise --budget")
    scale = [k for k in cut.kernels if k.name.startswith("scale")]
    compiled = [k for k in scale if k.mir is not None]
    spent = [k for k in scale if k.budget_spent]
    assert compiled and spent and len(compiled) + len(spent) <= len(scale)
    assert all(k.mir is None and k.error.rule == "compile-budget" for k in spent)
    text = spent[0].error.render()
    assert f"g.py:{spent[0].loc.line}:" in text and "scale was not compiled whole" in text
    assert f"{len(compiled)} of its " in text and "expressions typed" in text and "hint: raise --budget" in text
    # the instances compiled before are those of the whole compile, byte for byte
    before = {k.name: k.mir for k in compile_source(GENERIC, "g.py").kernels}
    assert all(k.mir == before[k.name] for k in compiled)
    # the other kernel has a meter of its own
    assert cut.kernel("plain").ok and cut.work["plain"].spent == compile_source(GENERIC, "g.py").work["plain"].spent
    # deterministic: the same cut on every run
    again = compile_source(GENERIC, "g.py", work=full - 1, work_hint="raise --budget")
    assert [(k.name, k.mir is not None, k.budget_spent) for k in again.kernels] == \
        [(k.name, k.mir is not None, k.budget_spent) for k in cut.kernels]


@pytest.fixture
def reading_free(monkeypatch):
    """Reading the file charges nothing (test_fe_read_work.py charges it): the budgets
    below are those of the checking and lowering alone."""
    monkeypatch.setattr(module_reads, "READ_UNITS", 0)
    monkeypatch.setattr(imported_funcs, "TAKE_UNITS", 0)


def test_a_budget_spent_in_the_typing_search_or_before_mir_names_the_kernel(reading_free):
    cut = compile_source(GENERIC, "g.py", work=1000)
    assert [(k.name, k.budget_spent) for k in cut.kernels] == [("scale[...]", True), ("plain", True)]
    assert "ran out in the typing search" in cut.kernels[0].error.render()
    assert "ran out before the kernel reached MIR" in cut.kernels[1].error.render()
    assert not cut.kernels[0].unknown      # not the instantiations not enumerated: never a type-oblivious proof
    # a budget as large as the whole compile changes nothing
    full = compile_source(GENERIC, "g.py")
    exact = compile_source(GENERIC, "g.py", work=max(m.spent for m in full.work.values()))
    assert [(k.name, k.mir) for k in exact.kernels] == [(k.name, k.mir) for k in full.kernels]


CONFIGURED = '''
import os
import warp as wp

_PRECISION_ALIASES = {"half": wp.float16, "single": wp.float32, "double": wp.float64}


def _resolve_precision(value):
    if value is None:
        return wp.float32
    key = value.strip().lower()
    if key not in _PRECISION_ALIASES:
        raise ValueError(value)
    return _PRECISION_ALIASES[key]


scalar_t = _resolve_precision(os.getenv("PKG_PRECISION"))


@wp.kernel
def scaled(a: wp.array(dtype=scalar_t)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = a[i] * scalar_t(2.0)
'''


def test_one_budget_spans_the_configurations_and_a_spent_one_reads_no_more(monkeypatch, reading_free):
    reads: list = []
    read = driver._read
    monkeypatch.setattr(driver, "_read", lambda *args: reads.append(args[-1]) or read(*args))
    whole = compile_source(CONFIGURED, "c.py")
    assert len(reads) == 4          # as written (to find the choice), then each configuration
    assert [k.name for k in whole.kernels] == ["scaled{scalar_t=float32}", "scaled{scalar_t=float16}",
                                               "scaled{scalar_t=float64}"]
    assert all(k.ok for k in whole.kernels)
    per_configuration = whole.work["scaled"].spent // 3
    reads.clear()
    cut = compile_source(CONFIGURED, "c.py", work=per_configuration + per_configuration // 2)
    assert len(reads) == 3          # the third configuration: nothing left to compile, not read
    first, second, third = cut.kernels
    assert first.ok and first.mir == whole.kernels[0].mir
    assert second.budget_spent and "ran out before the kernel reached MIR" in second.error.render()
    assert third.budget_spent and "ran out in an earlier configuration" in third.error.render()
    assert [k.name for k in cut.kernels] == [k.name for k in whole.kernels]


def _calls(n: int) -> str:
    body = " + ".join(f"x * {k}.0" for k in range(1, 30))
    return (f"import warp as wp\n\n@wp.func\ndef helper(x: float):\n    return {body}\n\n"
            f"@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n"
            + "".join("    a[i] = helper(a[i])\n" for _ in range(n)))


def test_a_func_checked_once_is_charged_once_however_often_it_is_called():
    once, five = (compile_source(_calls(n), "f.py").work["k"] for n in (1, 5))
    # four more call statements (a few expressions each), never four more checks of helper's 59
    assert 0 < five.counts["typing"] - once.counts["typing"] < 40 and "reused" not in five.counts
