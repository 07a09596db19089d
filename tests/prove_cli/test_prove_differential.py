"""Differential soundness: no obligation the prover marks proved is violated
by a simulator run of an admitted launch, over random small kernels (two
generators: global-array arithmetic with loops and atomics; shared memory
with barriers, barrier loops, break/continue and block_until). The seeds
are fixed, so a failure names a reproducible kernel."""
from __future__ import annotations

import random

import pytest

from prove_cli.differential_kernels import (
    check, global_kernel_source, global_launches, shared_kernel_source, shared_launches,
)

GENERATORS = {
    "global": (global_kernel_source, global_launches),
    "shared": (shared_kernel_source, shared_launches),
}


@pytest.mark.parametrize("family, seed", [("global", s) for s in range(6)]
                         + [("shared", s) for s in range(16)])
def test_proved_obligations_hold_on_simulated_launches(family, seed):
    source, launches = GENERATORS[family]
    r = random.Random(seed)
    src = source(r)
    verdict = check(src, r, f"{family}{seed}", launches)
    assert not verdict.startswith("FALSE"), f"{verdict}\n{src}"
    assert verdict in ("none-proved", "compile-error") or verdict.startswith("ok"), verdict


def test_the_check_catches_a_false_proof():
    """The check itself can fail: a kernel whose 'proof' is contradicted by a
    run (checked by handing it a prover that proves everything)."""
    import verikern.proofs.driver as driver
    from verikern.proofs.obligations import Status

    src = ("import verikern as vk\n\n\n@vk.kernel\n"
           "def k(a: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), "
           "n: vk.int32, m: vk.int32):\n    i = vk.tid()\n    a[i] = 1\n")
    real = driver.prove_mir

    def optimistic(kernel, **kw):
        rep = real(kernel, **kw)
        import dataclasses
        return dataclasses.replace(rep, obligations=tuple(
            dataclasses.replace(o, status=Status.PROVED) for o in rep.obligations))

    import prove_cli.differential_kernels as dk
    dk.prove_mir, saved = optimistic, dk.prove_mir
    try:
        verdict = check(src, random.Random(1), "optimistic", global_launches)
    finally:
        dk.prove_mir = saved
    assert verdict.startswith("FALSE PROOF"), verdict
