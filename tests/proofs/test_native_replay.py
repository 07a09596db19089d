"""Replay beyond the simulator's work budget: the launch runs on cpu:native
with fuel (loop-header executions, counted exactly), so a bug behind a
400,000-iteration loop is confirmed deterministically, and only a real
violation at the obligation's site confirms."""
from __future__ import annotations


import numpy as np
import pytest

import verikern as vk
from verikern.backends import native
from verikern.backends.launch import prepare_mir_launch
from verikern.errors import OutOfBoundsError, SimulationBudgetExceeded
from verikern.frontend import compile_file, compile_source
from verikern.proofs.confirming.native_replay import native_attempt
from verikern.proofs.confirming.replay import ReplayVerdict, replay_outcome
from verikern.proofs.confirming.replay_launch import ConcreteLaunch
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS
LONG = CORPUS / "bounds_after_400000_iteration_loop.py"

WALK = """import verikern as vk


@vk.kernel
def walk(out: vk.array(dtype=vk.int32), n: int):
    i = vk.tid()
    pos = 0
    for k in range(400000):
        pos = pos + 1
    if i == 0:
        out[pos - n] = 1
"""


def _kernel(path=LONG):
    (kr,) = compile_file(path).kernels
    return kr.mir


def _walk():
    (kr,) = compile_source(WALK, "walk.py").kernels
    return kr.mir


def test_the_corpus_launch_fails_natively_at_the_documented_site():
    # the witness the simulator would need ~20 s for, run independently of the prover
    k = _kernel()
    with pytest.raises(OutOfBoundsError) as info:
        vk.launch(k, 1, inputs=[np.zeros(400000, np.int32), 400000], block_dim=1,
                  device="cpu:native")
    assert (info.value.loc.line, info.value.loc.col) == (16, 9)
    # one step fewer: pos = 399999 is in bounds
    vk.launch(k, 1, inputs=[np.zeros(400000, np.int32), 399999], block_dim=1, device="cpu:native")


def test_fuel_counts_loop_header_executions_exactly():
    # one thread: the loop header runs 400,000 times into the body and once more to leave
    k = _kernel()
    for fuel, stops in ((400_000, True), (400_001, False)):
        kk, config, arrays, scalars = prepare_mir_launch(
            k, 1, [np.zeros(400000, np.int32), 400000], 1)
        if stops:
            with pytest.raises(SimulationBudgetExceeded):
                native.run(kk, config, arrays, scalars, fuel=fuel)
        else:
            with pytest.raises(OutOfBoundsError):
                native.run(kk, config, arrays, scalars, fuel=fuel)


def test_a_bug_behind_a_long_loop_is_confirmed_by_replay():
    k = _kernel()
    report = prove_mir(k, file=str(LONG))
    (ob,) = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert ob.status is Status.FAILED and ob.confirmed is True, ob.reason
    assert "cpu:native" in ob.reason
    # the simulator alone, with the same budget, cannot reach it
    out = replay_outcome(k, ob, budget=40_000)
    assert out.verdict is ReplayVerdict.OUT_OF_BUDGET


def _obligation(k):
    report = prove_mir(k, file="walk.py", replay=False)
    (ob,) = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert ob.status is Status.FAILED
    return ob


def test_native_replay_confirms_only_a_real_violation():
    k = _walk()
    ob = _obligation(k)
    arr = np.zeros(400000, np.int32)

    def launch(n):
        return ConcreteLaunch((1,), 1, (arr.copy(), np.int32(n)))

    assert native_attempt(k, ob, launch(0)).verdict is ReplayVerdict.CONFIRMED     # out[400000]
    assert native_attempt(k, ob, launch(1)).verdict is ReplayVerdict.NO_VIOLATION  # out[399999]
    spent = native_attempt(k, ob, launch(0), fuel=1000)
    assert spent.verdict is ReplayVerdict.OUT_OF_BUDGET and "fuel of 1000" in spent.why


def test_kinds_without_native_checks_are_left_to_the_simulator():
    import dataclasses

    k = _walk()
    race = dataclasses.replace(_obligation(k), kind=ObligationKind.RACE)
    assert native_attempt(k, race, ConcreteLaunch((1,), 1, (np.zeros(4, np.int32), np.int32(0)))) \
        is None
