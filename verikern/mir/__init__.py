"""MIR: typed scalar SSA control-flow graphs (see docs/MIR.md)."""
from .nodes import *  # noqa: F401,F403
from .nodes import INSTRUCTION_CLASSES, TERMINATOR_CLASSES  # noqa: F401
from .types import (  # noqa: F401
    BOOL, F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, SCALAR_TYPES, ScalarType,
)
from .printer import format_kernel  # noqa: F401
from .verifier import MirVerifyError, verify  # noqa: F401
