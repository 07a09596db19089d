"""MIR -> CBMC-compatible C11 (installed as verikern.encoders.c).

`emit_c(kernel)` writes one self-contained C file: the kernel as a resumable
C function over explicit thread and block ids (`emitter`), exact machine
arithmetic (`ops`, `prelude`), and a verification harness (`harness`) whose
inputs come from `nondet_*()` functions, with `__CPROVER_assume` for the
hardware limits and every contract and `__CPROVER_assert` for every
obligation the prover enumerates (message: `<obligation id> <kind>
<file>:<line>:<col>`).  Compiled with `-DVERIKERN_REPLAY` and the shipped
header `verikern_harness.h` (`HEADER_DIR`), the same file is a program that
reads a counterexample JSON and runs the launch concretely (`replay`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from verikern.mir.nodes import Kernel

from .emitter import INSTRUCTIONS, TERMINATORS, obligation_message  # noqa: F401
from .ops import CEncodeError  # noqa: F401
from verikern.proofs.obligations import enumerate_obligations

if TYPE_CHECKING:
    from .harness import CEncoding
    from .loops import LoopAbstraction

#: The folder holding verikern_harness.h (package data).
HEADER_DIR = Path(__file__).resolve().parent


def emit_c(kernel: Kernel, *, dims: tuple[int, ...] | None = None,
           block_dim: int | None = None) -> str:
    """The C encoding of `kernel`; `dims` / `block_dim` fix the launch as the
    prover's --dim / --block-dim do.  Raises CEncodeError for what the C
    encoder does not translate."""
    return encode_c(kernel, dims=dims, block_dim=block_dim).text


def encode_c(kernel: Kernel, *, dims: tuple[int, ...] | None = None,
             block_dim: int | None = None,
             abstractions: tuple["LoopAbstraction", ...] = ()) -> "CEncoding":
    """emit_c's text with the loops CBMC sees in it (harness.CEncoding: each
    loop's CBMC id, line and MIR loop header), for per-loop unwinding depths.
    `abstractions`: loops the CBMC build checks through an invariant instead
    of unwinding them (encoders.c.loops; ValueError for a loop that cannot
    be abstracted)."""

    from .harness import HarnessEmitter  # lazy: import cycle with encoders.c.harness
    return HarnessEmitter(kernel, enumerate_obligations(kernel), dims, block_dim,
                          abstractions).encode()
