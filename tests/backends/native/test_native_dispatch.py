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


def test_every_binary_op_name_has_an_integer_or_float_lowering():
    from verikern.backends.llvm.ops import BOOL_BINARY, FLOAT_BINARY, INT_BINARY
    from verikern.mir.nodes import BINARY_OPS

    for op in BINARY_OPS:
        assert op in INT_BINARY or op in FLOAT_BINARY, op
    assert set(BOOL_BINARY) == {"and", "or", "xor"}
    assert set(INT_BINARY) | set(FLOAT_BINARY) == set(BINARY_OPS)


@pytest.mark.parametrize("kind,type_name", [("binop", "int32"), ("binop", "float32"),
                                            ("binop", "bool"), ("unop", "float32"),
                                            ("cmp", "int32")])
def test_unknown_op_name_raises(kind, type_name):
    from mir_kernels import elementwise
    from verikern.backends.llvm import lower
    from verikern.mir.types import SCALAR_TYPES

    k = elementwise(kind, "frobnicate", SCALAR_TYPES[type_name])
    with pytest.raises(LoweringError, match="frobnicate|cannot lower"):
        lower(k, "cpu")
