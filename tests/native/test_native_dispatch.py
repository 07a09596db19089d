"""Every MIR node class has an LLVM lowering; an unknown one raises."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from verikern.backends.llvm import LoweringError
from verikern.backends.llvm.body import LOWERING, handler
from verikern.mir.nodes import (
    INSTRUCTION_CLASSES, TERMINATOR_CLASSES, UNKNOWN_LOC, Instr, Phi,
)


def test_every_mir_class_has_a_lowering():
    wanted = set(INSTRUCTION_CLASSES) | {Phi} | set(TERMINATOR_CLASSES)
    missing = [c.__name__ for c in wanted if c not in LOWERING]
    assert not missing, f"no LLVM lowering for {missing}"


def test_unknown_instruction_raises_instead_of_skipping():
    @dataclass(frozen=True)
    class Mystery(Instr):
        loc: object = UNKNOWN_LOC

    with pytest.raises(LoweringError, match="no LLVM lowering for MIR Mystery"):
        handler(Mystery())
