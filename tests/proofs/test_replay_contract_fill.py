"""Replay fills the free elements of a contracted array so that the launch
satisfies the contract even when its bounds are computed (`n - 4`, an
array length): otherwise the launch is refused and a real bug stays
unconfirmed."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from verikern.frontend import compile_file, compile_source
from verikern.proofs.confirming.replay_launch import _operand_value, concrete_launch, with_shapes
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

CASE = Path(__file__).resolve().parents[1] / "corpus" / "bounds_gather_window_computed_contract.py"


def test_a_computed_contract_bound_is_filled_and_the_bug_confirmed():
    (kr,) = compile_file(CASE).kernels
    report = prove_mir(kr.mir, file=str(CASE))
    (ob,) = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS
             and o.status is Status.FAILED]
    assert ob.confirmed is True, ob.reason
    # the free elements of idx (all but the recorded ones) satisfy the contract
    # (n = 32: zeros would break the contract)
    cex = dataclasses.replace(ob.counterexample, scalars={**ob.counterexample.scalars, "n": 32},
                              arrays={})       # every element free (none recorded)
    cex = with_shapes(kr.mir, cex, {**cex.shapes, "idx": (64,), "x": (32,)})
    idx = concrete_launch(kr.mir, cex).inputs[0]
    n = cex.scalars["n"]
    assert idx.size == 64 and np.all((idx >= n - 4) & (idx < n)), (n, idx)


def test_bounds_are_evaluated_as_the_kernel_computes_them():
    src = """import verikern as vk


@vk.kernel
def k(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32), n: int):
    vk.requires(vk.all_in_range(idx, x.shape[0] * 2 - n, n // 3))
    i = vk.tid()
"""
    (kr,) = compile_source(src, "k.py").kernels
    (c,) = [ins for _, ins in kr.mir.instructions() if type(ins).__name__ == "RequiresArray"]
    assert _operand_value(c.lo, {"n": 5}, kr.mir, {"x": (10,), "idx": (3,)}) == 15
    # int32 arithmetic wraps, as the kernel's does
    assert _operand_value(c.lo, {"n": -2 ** 31}, kr.mir, {"x": (0,), "idx": (3,)}) == -2 ** 31
    # an operation it does not evaluate gives no value (the launch keeps zeros)
    assert _operand_value(c.hi, {"n": 5}, kr.mir, {"x": (10,), "idx": (3,)}) is None
