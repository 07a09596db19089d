"""How a decided obligation reads: its operands named as in the source, the
thread of a counterexample, and the `Obligation` built from a verdict.

Invariant: these only word what a decider established -- `proved_obligation`
is built by a decider after an `unsat`, `failed_obligation` with the
counterexample of a model (its reason says when the model came through an
abstraction), `undecided_obligation` with the solver's reason; a rendering
never changes a status. An operand reads as its variable, else as rebuilt
from MIR, else as the source text it was compiled from, never as an SSA value
when the source has a better spelling.
"""
from __future__ import annotations

import re

from verikern.mir.nodes import BinOp, Cast, Const, Load, ShapeOf, Special
from verikern.mir.ops import symbols

from verikern.proofs.obligations import Counterexample, Obligation, ObligationSpec, Status
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.source_text import call_text, index_text, operand_text
from verikern.proofs.deciding.solving import Answer


def who(cex: Counterexample, i: int = 0) -> str:
    """Thread `i` of a counterexample, as messages name it."""
    b, t = cex.threads[i]
    return f"thread {t} of block {b}, block_dim {cex.block_dim}"


#: the infix ops a message rebuilds from MIR (every binary op spelled as an
#: operator but `**`, which a message shows by its value)
SYMBOLS = {op: sym for op, sym in symbols("binary").items() if op != "pow"}


#: What a rendering built from MIR shows where it lost the source: an SSA
#: value (`%12`; `%` alone is the modulo operator) or a load's elided index.
SSA = re.compile(r"%\d|\[\.\.\.\]")


def operand_name(op, ctx: ProofContext | None = None, depth: int = 0) -> str:
    """A source-like rendering of an operand: its variable name when it has
    one (a captured constant's without the `@`), else built from its
    definition, and where that would show an SSA value (`%12`) or an elided
    load (`a[...]`), the source expression it was compiled from
    (proofs.deciding.source_text)."""
    text = _built(op, ctx, depth)
    if not SSA.search(text) or ctx is None or isinstance(op, Const) or op.name:
        return text
    ins = ctx.defs.get(op.id)
    quoted = operand_text(ctx.kernel, ins, ctx.defs) if ins is not None else None
    if quoted is None:
        return text
    return f"({quoted})" if text.startswith("(") and isinstance(ins, BinOp) else quoted


def index_name(ctx: ProofContext, spec: ObligationSpec, idx_op) -> str:
    """Index operand `idx_op` of the access at `spec`: `operand_name`, or the
    access's own index text in the source where that shows an SSA value."""
    text = operand_name(idx_op, ctx)
    if SSA.search(text):
        return index_text(ctx.kernel, spec.loc, spec.dim) or text
    return text


#: The prefix of the names of wp.lower_bound's search locals
#: (verikern/frontend/lower/search_calls.py, without their `$`).
_SEARCH = "lower_bound."


def search_local(op, ctx: ProofContext | None) -> tuple[str, str] | None:
    """(local, call) for an operand of the loop that a `wp.lower_bound` call is
    lowered to: the local's own name (`mid`, `lower`) and the call as the
    source writes it (`wp.lower_bound(offsets, ids[i])`), else None. The
    search's `lower` after the loop is the call's result."""
    if isinstance(op, Const) or not op.name or not op.name.startswith(_SEARCH) or ctx is None:
        return None
    ins = ctx.defs.get(op.id)
    call = call_text(ctx.kernel, ins.loc, "lower_bound") if ins is not None else None
    return op.name[len(_SEARCH):], call or "wp.lower_bound(...)"


def _built(op, ctx: ProofContext | None, depth: int) -> str:
    """`operand_name` from the operand's definition (at most three levels deep)."""
    if isinstance(op, Const):
        return str(op.value)
    search = search_local(op, ctx)
    if search is not None:   # the user's call for its result, the local's name inside it
        return search[1] if search[0] == "lower" else search[0]
    if op.name:
        return op.name.lstrip("@")
    ins = ctx.defs.get(op.id) if ctx is not None else None
    if ins is not None and depth < 3:
        if isinstance(ins, Special):
            return f"vk.{ins.kind}()" if ins.kind != "launch_dim" else f"vk.launch_dim({ins.dim})"
        if isinstance(ins, ShapeOf):
            return f"{ins.array.name}.shape[{ins.dim}]"
        if isinstance(ins, BinOp) and ins.op in SYMBOLS:
            return (f"({operand_name(ins.lhs, ctx, depth + 1)} {SYMBOLS[ins.op]} "
                    f"{operand_name(ins.rhs, ctx, depth + 1)})")
        if isinstance(ins, Cast):
            return f"{ins.result.type}({operand_name(ins.operand, ctx, depth + 1)})"
        if isinstance(ins, Load):
            return f"{ins.array.name}[...]"
    return str(op)


def failed_obligation(spec: ObligationSpec, message: str, cex: Counterexample) -> Obligation:
    """FAILED with `cex`, a model of the obligation's query (its reason says
    when the model came through an abstraction: replay decides)."""
    reason = None
    if cex.abstracted:
        reason = "counterexample found through an abstraction (loop, float or memory value)"
    return Obligation(spec.kind, spec.loc, Status.FAILED, message, counterexample=cex,
                      reason=reason, other_loc=spec.other_loc, spec=spec)


def proved_obligation(spec: ObligationSpec, message: str) -> Obligation:
    """PROVED: only for a decider whose queries were all `unsat`."""
    return Obligation(spec.kind, spec.loc, Status.PROVED, message, other_loc=spec.other_loc,
                      spec=spec)


def undecided_obligation(spec: ObligationSpec, what: str, ans: Answer) -> Obligation:
    """UNKNOWN with the solver's reason (`ans.reason`)."""
    return Obligation(spec.kind, spec.loc, Status.UNKNOWN, f"{what}: {ans.reason}",
                      reason=ans.reason, other_loc=spec.other_loc, spec=spec)


__all__ = ["SSA", "SYMBOLS", "failed_obligation", "index_name", "operand_name", "proved_obligation",
           "undecided_obligation", "who"]
