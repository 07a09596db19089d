"""An example launch of a kernel: one concrete launch (launch dims, block
size, scalar arguments, captured constants, array shapes and the contents its
content contracts need) that satisfies the kernel's requires together with
the hardware limits -- the witness that a contract admits launches at all,
shown beside a suggested contract ("for example: dim=...").

Invariants:
- the example is a z3 model of the launch facts and of one thread's entry
  facts (every `Requires`, the content contracts, the array-size bound)
  of the very kernel given, so a launch of it passes `vk.check_launch`;
- None when no model is found within the work given (z3 resource units,
  counted): the caller reads that as "admits no launch", never more;
- small launches first (at most 512 threads, dims of at most 64, scalars
  within +-64, then 4096 threads and dims), with every array non-empty, in
  the launch model's probe launches; else one found as the proof context's
  admissibility check finds one: an example is meant to be read and run.
"""
from __future__ import annotations

import logging
import z3

from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES, SMALL_MODEL_TIERS
from verikern.mir.nodes import ArrayRef, Kernel
from verikern.proofs.deciding.budget import MEGA, fresh_context, own_context
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.invariants import HoudiniResult
from verikern.proofs.deciding.prover_solve import counterexample
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.solving import Attempt, first_model
from verikern.proofs.obligations import ExampleLaunch

LOG = logging.getLogger("verikern.proofs.example")
#: z3 units for one attempt of the search, and for all of them together.
ATTEMPT_RLIMIT = MEGA // 4
EXAMPLE_RLIMIT = 4 * MEGA


def _contract_room(ctx: ProofContext) -> list:
    """For each `all_in_range(a, lo, hi)`: `a` is empty or `lo < hi` (its
    contents can satisfy it). The other content contracts always can."""
    out = []
    for contracts in ctx.contracts.values():
        for c in contracts:
            if c.kind != "all_in_range" or c.lo is None or c.hi is None:
                continue
            lo, hi = ctx.A.term(c.lo), ctx.A.term(c.hi)
            below = lo < hi if c.array.dtype.is_signed else z3.ULT(lo, hi)
            empty = [ctx.launch.shape(c.array, k) == 0 for k in range(c.array.ndim)]
            out.append(z3.Or(below, *empty))
    return out


@own_context()
def example_launch(kernel: Kernel, *, dims=None, block_dim=None,
                   max_array_bytes: int | None = None,
                   budget_units: int = EXAMPLE_RLIMIT, label: str = "") -> ExampleLaunch | None:
    """A launch of `kernel` its requires admit, or None (see module docstring);
    `label` prefixes the names of its queries (logs, `--dump-smt` files).
    It runs in a z3 context of its own (fresh_context), with the cyclic
    collector paused also when called outside a proof (budget.own_context)."""
    fresh_context()
    prefix = f"{label or kernel.name + '.'}example."
    # the proof context's own admissibility check gets a short look (unknown refuses nothing)
    ctx_budget = SolverSession(per_check=ATTEMPT_RLIMIT, total=budget_units, label=prefix)
    try:
        # no loop invariants are needed: only the entry facts constrain a launch
        ctx = ProofContext(kernel, dims, block_dim, ctx_budget, invariants=HoudiniResult({}),
                           max_array_bytes=max_array_bytes if max_array_bytes is not None
                           else DEFAULT_MAX_ARRAY_BYTES)
    except Exception as err:         # inadmissible (no launch) or unsupported: no example
        LOG.info("%s: no example launch: %s", kernel.name, err)
        return None
    launch = ctx.launch
    # a launch is the launch symbols under the hardware limits, the requires (uniform:
    # launch geometry, shapes, scalars) and room for every content contract
    facts = list(launch.facts) + [f for _, f in ctx.A.requires_at] + _contract_room(ctx)
    nonempty = [z3.UGE(s, 1) for s in launch.shapes.values()]
    if not z3.is_bv_value(launch.block_dim):     # a block no larger than the launch reads better
        nonempty.append(z3.ULE(launch.block_dim, launch.size))
    tiers = [launch.small_model_hints(*tier) for tier in SMALL_MODEL_TIERS[:2]]
    attempts: list[Attempt] = [(facts + probe + nonempty + tier, ATTEMPT_RLIMIT)
                               for tier in tiers for probe in launch.probes()]
    attempts += [(facts + nonempty + tier, ATTEMPT_RLIMIT) for tier in tiers]
    attempts += [(facts + tier, ATTEMPT_RLIMIT) for tier in tiers]
    attempts.append((facts, None))   # the last resort: what work is left
    budget = SolverSession(per_check=max(1, budget_units - ctx_budget.spent),
                          total=max(1, budget_units - ctx_budget.spent),
                          label=prefix)
    try:
        model = first_model(budget, attempts, "example")
    except Exception as err:         # out of work: no example, never a claim
        LOG.info("%s: no example launch: %s", kernel.name, err)
        return None
    if model is None:
        return None
    cex = counterexample(ctx, model, [], False)   # no thread: no loaded values
    shapes = {a.name: cex.shapes[a.name] for a in kernel.params if isinstance(a, ArrayRef)}
    contents = ctx.content.launch_contents(model, [ctx.A], shapes)
    return ExampleLaunch(cex.dims, cex.block_dim, dict(cex.scalars), shapes,
                         {k: dict(v) for k, v in contents.items() if v})
