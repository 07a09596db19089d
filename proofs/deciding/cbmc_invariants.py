"""z3's loop invariants as certificates for CBMC's loop abstraction.

A loop whose trip count the kernel does not bound (cbmc_unwind: no derived
depth) can be checked by CBMC through an invariant instead of unwinding it
(encoders.c.loops: base case and inductive step are CBMC properties of the
harness itself, so CBMC checks the invariant; a wrong one makes every
obligation `unknown`, never `proved`). The invariants are the ones z3's
Houdini proved for the same loops (proofs.deciding.houdini: templates over
the header's phis), written as encoders.c.loops.LoopFact; `vk.invariant`
hints (conditions, not templates) are left out, which only weakens the
invariant CBMC assumes.

Invariant: this module only chooses what CBMC is asked to check; nothing it
returns is assumed without CBMC checking it.
"""
from __future__ import annotations

from typing import Any

import z3

from verikern.encoders.c.loops import LoopAbstraction, LoopFact, refusal
from verikern.encoders.smt.semantics import UnsupportedConstruct
from verikern.mir.nodes import Const, Kernel, Value
from verikern.proofs.deciding.invariants import candidate_operands
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.session import SolverSession


def abstractable(kernel: Kernel, headers: frozenset[str]) -> frozenset[str]:
    """The headers among `headers` whose loops encoders.c.loops can abstract
    (no barrier inside: `refusal`)."""
    return frozenset(lp.header for lp in kernel.loops
                     if lp.header in headers and refusal(kernel, lp) is None)


def houdini_invariants(kernel: Kernel, dims, block_dim, budget: Any = None,
                       max_array_bytes: int | None = None) -> dict[str, list]:
    """Header -> the candidates z3's Houdini kept for the kernel's loops on
    this launch ({} when z3 could not set up the kernel: the loops are then
    abstracted with no invariant, which is sound and weak). `budget`: a
    SolverSession, N million units per check, or None."""
    session = (budget if isinstance(budget, SolverSession)
               else SolverSession.from_megaunits(budget, label=f"{kernel.name}.cbmc-invariants."))
    try:
        ctx = (ProofContext(kernel, tuple(dims) if dims else None, block_dim, session)
               if max_array_bytes is None else
               ProofContext(kernel, tuple(dims) if dims else None, block_dim, session,
                            max_array_bytes=max_array_bytes))
    except (UnsupportedConstruct, z3.Z3Exception, ValueError):
        return {}
    return {h: list(cs) for h, cs in ctx.houdini.invariants.items()}


def loop_abstractions(kernel: Kernel, headers: frozenset[str],
                      invariants: dict[str, list]) -> tuple[LoopAbstraction, ...]:
    """The abstraction of each loop of `headers` with the template
    candidates of `invariants` (header -> Houdini's candidates) as its
    facts; hints and candidates of a loop with several entries are left out."""
    out = []
    for lp in kernel.loops:
        if lp.header not in headers:
            continue
        facts = []
        for c in invariants.get(lp.header, ()):
            try:
                phi, other, entry = candidate_operands(kernel, c)
            except (ValueError, UnsupportedConstruct):
                continue
            assert isinstance(other, (Value, Const, type(None)))   # MIR operands
            assert isinstance(entry, (Value, Const, type(None)))
            facts.append(LoopFact(c.kind, phi, other, entry, c.step))
        out.append(LoopAbstraction(lp.header, tuple(facts)))
    return tuple(out)
