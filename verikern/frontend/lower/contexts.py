"""The pending jumps of the loops and the inlined func being lowered.

Invariant: each list holds the (label, environment or values) of a block that
ends in a jump the lowerer has not yet emitted; the loop or func that owns
the context emits every one of them, with phis where they disagree, before
it is popped (lowerer.py, builtin_calls.py's `inline`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoopContext:
    breaks: list = field(default_factory=list)      # (label, env) pending jumps to exit
    continues: list = field(default_factory=list)   # (label, env) pending jumps to latch
    invariants: list = field(default_factory=list)


@dataclass
class FuncContext:
    returns: list = field(default_factory=list)     # (label, values) pending jumps


@dataclass(frozen=True)
class ArrayView:
    """A func parameter bound to a view of the caller's array (check/views.py):
    the array viewed and the operands of its fixed leading indices."""

    base: Any       # the MIR ArrayRef
    leading: tuple  # MIR operands, outermost first
