"""Shrinking a generated program on which two backends disagree.

Invariant: every candidate keeps the program well defined by construction:
a phase is removed whole (phases are self-contained), an expression node is
replaced only by one of its operands of the same type or by a zero literal,
and never when the node is `fixed` (what keeps a divisor or a shift amount
safe); the launch keeps the original values of the arrays that remain.
A candidate is kept only when `still_fails` says the same disagreement
remains, so the result shows the original bug or a smaller instance of it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..strategies import Launch
from .model import Expr, Program, count_exprs, expr_at, kind, lit, replace_expr


def launch_for(program: Program, original: Launch) -> Launch:
    """`original` restricted to the parameters `program` still has."""
    names = [a.name for a in program.arrays()] + [s.name for s in program.scalars()]
    return Launch(original.dims, original.block_dim, {n: original.values[n] for n in names})


def _zero(t: str) -> Expr:
    return lit(t, 0)


def _candidates(e: Expr) -> list[Expr]:
    if e.fixed:
        return []
    out = [a for a in e.args if a.type == e.type and not a.fixed]
    if kind(e.type) in "iufb" and _zero(e.type).fmt != e.fmt:
        out.append(_zero(e.type))
    return out


def _constant(e: Expr) -> Callable[[Expr], Expr | None]:
    return lambda _old: e


def shrink(program: Program, launch: Launch, still_fails: Callable[[Program, Launch], bool],
           budget: int = 150) -> tuple[Program, Launch, int]:
    """The smallest program (and its launch) found within `budget` tries on
    which `still_fails` holds; also the number of tries used."""
    tries = 0

    def attempt(p: Program) -> bool:
        nonlocal tries
        if tries >= budget:
            return False
        tries += 1
        return still_fails(p, launch_for(p, launch))

    progress = True
    while progress and tries < budget:
        progress = False
        j = 0
        while j < len(program.phases) and len(program.phases) > 1:
            smaller = program.with_phases(program.phases[:j] + program.phases[j + 1:])
            if attempt(smaller):
                program, progress = smaller, True
            else:
                j += 1
        index = 0
        while index < count_exprs(program) and tries < budget:
            changed = False
            node = expr_at(program, index)
            for cand in _candidates(node) if node is not None else []:
                smaller = replace_expr(program, index, _constant(cand))
                if attempt(smaller):
                    program, progress, changed = smaller, True, True
                    break
            if not changed:
                index += 1
    return replace(program), launch_for(program, launch), tries
