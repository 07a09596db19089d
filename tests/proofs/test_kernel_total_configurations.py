"""A kernel's total (`--kernel-budget`, proofs.deciding.budget.kernel_total) is one
per kernel definition, shared by every configuration of it (frontend/configured.py:
`half{real=float64}`, `half{real=float16}`, ...), as by every generic instance: the
configurations are the same kernel of the same file. Before session 25 each
configuration had a total of its own, so a kernel compiled for four precisions could
spend four totals (warpsphcore's `computeSPHDensityJVP_Kernel` spent two, 194 million
units at the default of 100), and its typing-premise search, which asks for the
definition's total, ran on none. A total cut short is never `proved` where the
whole one was not, and the same total gives the same verdicts twice."""
from __future__ import annotations

import textwrap

from verikern.app.prove import prove_source
from verikern.proofs.deciding.budget import MEGA
from verikern.proofs.obligations import KernelStatus

#: one kernel, three configurations of its precision (the binding read from source)
CONFIGURED = textwrap.dedent('''
    import os
    import warp as wp

    _BY_NAME = {"f16": wp.float16, "f32": wp.float32, "f64": wp.float64}


    def _pick(value):
        if value is not None:
            return _BY_NAME[value]
        return wp.float64


    real = _pick(os.environ.get("REAL"))


    @wp.kernel
    def half(x: wp.array(dtype=real), y: wp.array(dtype=real)):
        i = wp.tid()
        if i < x.shape[0] and i < y.shape[0]:
            x[i] = y[i] * real(0.5)
    ''')
NAMES = ["half{real=float64}", "half{real=float16}", "half{real=float32}"]


def _verdicts(reports) -> list:
    return [(r.kernel, r.status, [(o.loc, o.status, o.reason) for o in r.obligations]) for r in reports]


def test_the_configurations_of_a_kernel_share_one_total():
    whole = prove_source(CONFIGURED, "k.py")
    assert [r.kernel for r in whole] == NAMES
    assert all(r.status is KernelStatus.PROVED for r in whole), [(r.kernel, r.status) for r in whole]
    one = max(r.units for r in whole)
    assert one > 0
    # a total that holds one configuration's proof and a half: with a total per configuration
    # all three were proved on it; shared, the three together cannot be
    budget = 1.5 * one / MEGA
    runs = [prove_source(CONFIGURED, "k.py", kernel_budget=budget) for _ in range(2)]
    cut = runs[0]
    assert _verdicts(runs[1]) == _verdicts(cut)                   # the same total, the same verdicts
    # one hard bound over the configurations (z3 may pass a check's limit by a few units)
    assert sum(r.units for r in cut) <= budget * MEGA + MEGA // 100 < 2 * one
    assert any(r.status is KernelStatus.UNKNOWN for r in cut), [(r.kernel, r.status, r.units) for r in cut]
    for report in cut:                                            # never more than the whole total proved
        assert report.status in (KernelStatus.PROVED, KernelStatus.UNKNOWN)
        if report.status is KernelStatus.UNKNOWN:
            reasons = [o.reason or "" for o in report.obligations if o.status.value == "unknown"]
            assert reasons and all("raise --kernel-budget" in why for why in reasons), reasons
