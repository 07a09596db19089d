"""MIR -> SMT (z3) encoding used by the prover (verikern.proofs.deciding.prover).

- `semantics`: exact bit-vector meaning of each MIR integer operation;
- `launch`: the symbolic launch (dims, block size, grid, shapes, parameters)
  and per-thread identities, with the hardware guarantees as facts;
- `encoder`: one thread's CFG as guarded SSA, dispatch table keyed by MIR
  instruction class (`INSTRUCTION_ENCODERS`, `TERMINATOR_ENCODERS`);
- `abstraction`: sound nonlinear over-approximation for cheap first proofs.
"""
from .encoder import (  # noqa: F401
    INSTRUCTION_ENCODERS, TERMINATOR_ENCODERS, ThreadEncoding,
)
from .launch import LaunchModel  # noqa: F401
from .semantics import UnsupportedConstruct  # noqa: F401
