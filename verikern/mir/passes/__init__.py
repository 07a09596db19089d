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


#: The position in PASSES of the second trivial-phi removal. When it changes nothing
#: (returns its kernel itself), the round's result is a fixed point of every pass, so the
#: round that would only confirm it is skipped: the kernel it saw is a fixed point of
#: trivial-phi removal (it just said so) and of constant folding (which ran to its own fixed
#: point just before, and folds by operands only), and dead-code elimination after it only
#: drops definitions nobody reads -- it rewrites no operand, and a phi or instruction it
#: keeps reads none it drops --, so it makes no phi trivial and nothing foldable, and a
#: second elimination finds nothing (it removes by use counts to their fixed point).
_SETTLED_AFTER = 2


def run_default_pipeline(kernel: Kernel, check: bool = False) -> Kernel:
    """Run PASSES until nothing changes (or a round's second trivial-phi removal
    changes nothing: _SETTLED_AFTER); `check` verifies after every pass."""
    for _ in range(8):
        before, settled = kernel, False
        for position, p in enumerate(PASSES):
            charge_walk(kernel)     # the kernel's compile work (verikern.mir.work)
            seen, kernel = kernel, p.run(kernel)
            settled = settled or (position == _SETTLED_AFTER and kernel is seen)
            if check:
                verify(kernel)
        if settled or kernel == before:
            break
    return kernel


__all__ = ["PASSES", "Pass", "run_default_pipeline", "ConstantFolding",
           "DeadCodeElimination", "TrivialPhiRemoval"]
