"""Every obligation's solver queries as standard SMT-LIB 2 (`verikern emit
--ir smt2`), checkable by any solver that reads QF_BV.

Invariant: the queries are exactly those the prover makes for the obligation
(the same strategy, budgets and order: proofs.deciding.solving), each preceded by a
comment naming it and z3's answer; the queries every obligation rests on
(admissibility, loop invariants) are listed once, first, under `shared`.
"""
from __future__ import annotations

from verikern.mir.nodes import Kernel

from verikern.proofs.deciding.budget import own_context
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import obligation_id
from verikern.proofs.deciding.prover import enumerate_obligations, prove_kernel


@own_context()
def obligation_queries(kernel: Kernel, *, dims=None, block_dim=None,
                       budget: float | None = None) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(obligation id or "shared", [(query name, z3 answer, SMT-LIB text)])], in
    the prover's order (in a z3 context of their own: budget.own_context)."""
    solver_budget = SolverSession.from_megaunits(budget, label=f"{kernel.name}.")
    solver_budget.captured = []
    prove_kernel(kernel, dims=dims, block_dim=block_dim, budget=solver_budget)
    topics = {obligation_id(s) + ".": obligation_id(s) for s in enumerate_obligations(kernel)}
    groups: dict[str, list] = {}
    for name, topic, answer, text in solver_budget.captured:
        groups.setdefault(topics.get(topic, "shared"), []).append((name, answer, text))
    order = ["shared"] + list(dict.fromkeys(topics.values()))
    return [(key, groups[key]) for key in order if key in groups]


def render(kernel: Kernel, groups, wanted: str | None = None) -> str:
    """The SMT-LIB text of `groups` (only obligation `wanted` and the shared
    queries, when given)."""
    out = []
    for key, queries in groups:
        if wanted is not None and key not in (wanted, "shared"):
            continue
        for name, answer, text in queries:
            out.append(f"; kernel {kernel.name}, obligation {key}, query {name}: "
                       f"z3 answered {answer}\n(reset)\n{text}")
    return "\n".join(out)


__all__ = ["obligation_queries", "render"]
