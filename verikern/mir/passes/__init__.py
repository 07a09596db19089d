"""MIR-to-MIR passes. Each pass is an object with `name` and
`run(kernel) -> kernel` (see `base.Pass`), in its own module.

Invariant: passes preserve behaviour and obligations (see `base`);
`run_default_pipeline` runs PASSES in order, to a fixed point.
"""
from __future__ import annotations

from ..nodes import Kernel
from ..verifier import verify
from .base import Pass
from .const_fold import ConstantFolding
from .dce import DeadCodeElimination
from .trivial_phi import TrivialPhiRemoval
from ..work import charge_walk

PASSES: tuple = (TrivialPhiRemoval(), ConstantFolding(), TrivialPhiRemoval(),
                 DeadCodeElimination())


def run_default_pipeline(kernel: Kernel, check: bool = False) -> Kernel:
    """Run PASSES until nothing changes; `check` verifies after every pass."""
    for _ in range(8):
        before = kernel
        for p in PASSES:
            charge_walk(kernel)     # the kernel's compile work (verikern.mir.work)
            kernel = p.run(kernel)
            if check:
                verify(kernel)
        if kernel == before:
            break
    return kernel


__all__ = ["PASSES", "Pass", "run_default_pipeline", "ConstantFolding",
           "DeadCodeElimination", "TrivialPhiRemoval"]
