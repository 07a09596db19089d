"""A segment kernel's typing premise (verikern/app/premise_suggestion.py): the
instances proved under their own contract (the float ones, and uint32) are the
premise tried right after the proved ones, with those contracts, before the
typings that fail spend the kernel's total. nvalchemiops' `_segment_div_kernel`
divides by `type(numerator[0])(denominator[i])`, which is 0 in int8 for a count
of 256: its integer instances really divide by zero, and the project registers
only floats, through a helper verikern cannot read. The reference is
independent: the pasted source compiled again and proved as written.

The whole kernel (eleven instances, about 20 CPU s) is NIGHTLY (tests/tiers_nightly.py); the
default run keeps the same premise step on two of its instances (about 1.5 CPU s)."""
from __future__ import annotations

import re

from verikern.app.prove import prove_source
from verikern.proofs.obligations import KernelStatus, Status
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

SEGMENT_DIV = '''\
from typing import Any

import warp as wp


@wp.kernel
def seg_div(numerator: wp.array(dtype=Any), denominator: wp.array(dtype=wp.int32),
            result: wp.array(dtype=Any)):
    i = wp.tid()
    if denominator[i] > 0:
        result[i] = numerator[i] / type(numerator[0])(denominator[i])
'''


def test_the_segment_kernel_gets_its_proved_under_typings_as_the_premise():
    reports = {r.kernel: r for r in prove_source(SEGMENT_DIV, "s.py", suggest=True)}
    int8 = reports["seg_div[int8, int8]"]
    assert int8.status is KernelStatus.FAILED            # the verdict as written is unchanged
    assert any(o.status is Status.FAILED and o.kind.value == "div-zero" for o in int8.obligations), \
        [(o.kind.value, o.status.value) for o in int8.obligations]
    premise, *contract = int8.suggested_decorators
    assert int8.proved_under_suggestion is True
    assert "(numerator.dtype, result.dtype) in (" in premise and "wp.int8" not in premise
    assert all(f"wp.float{n}" in premise for n in (16, 32, 64))
    assert contract and "vk.launch_dim() <= numerator.shape[0]" in contract[0]
    # pasted as users are told to: no int8 instance, every instance it admits proved as written
    again = prove_source(pasted(SEGMENT_DIV, suggestion_inserts(SEGMENT_DIV, 6, list(int8.suggested_decorators))),
                         "s.py", suggest=False)
    assert "seg_div[int8, int8]" not in {r.kernel for r in again}
    assert {r.kernel for r in again} >= {f"seg_div[float{n}, float{n}]" for n in (16, 32, 64)}
    assert all(r.status is KernelStatus.PROVED for r in again), {r.kernel: r.status.value for r in again}


def test_two_instances_get_the_one_proved_under_its_contract_as_the_premise():
    """The (b') step of suggest_premises on two instances of the kernel above (the
    `kernel` filter): int8 divides by zero as written, float32 is proved only under its
    own contract, nothing is proved as written, so no premise but the instance proved
    under its contract, with that contract, proves the kernel. Pasted, only float32 is
    left and it is proved as written."""
    chosen = ["seg_div[int8, int8]", "seg_div[float32, float32]"]
    reports = {r.kernel: r for r in prove_source(SEGMENT_DIV, "s.py", suggest=True, kernel=chosen)}
    assert sorted(reports) == sorted(chosen)
    int8 = reports["seg_div[int8, int8]"]
    assert int8.status is KernelStatus.FAILED            # the verdict as written is unchanged
    assert any(o.status is Status.FAILED and o.kind.value == "div-zero" for o in int8.obligations)
    assert reports["seg_div[float32, float32]"].status is not KernelStatus.PROVED
    assert int8.proved_under_suggestion is True
    premise, *contract = int8.suggested_decorators
    # float32 alone, however the premise is spelled (per parameter or joint)
    assert "numerator.dtype" in premise and set(re.findall(r"\bwp\.(\w+)", premise)) == {"float32"}, premise
    assert contract and "vk.launch_dim() <= numerator.shape[0]" in contract[0]
    again = prove_source(pasted(SEGMENT_DIV, suggestion_inserts(SEGMENT_DIV, 6, list(int8.suggested_decorators))),
                         "s.py", suggest=False)
    assert {r.kernel: r.status for r in again} == {"seg_div[float32, float32]": KernelStatus.PROVED}
