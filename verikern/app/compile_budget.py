"""The frontend's compile budget of each kernel for a proof (verikern.mir.work,
frontend/compile_budget.py): `budget.compile_units` of --budget, with the hint a kernel
past it gives. Every compile a proof makes -- the kernel's file, and each pasted copy
re-proved for a suggestion, a type-oblivious proof or a typing premise -- takes it, so no
compile of a proof is unbounded."""
from __future__ import annotations

from verikern.proofs.deciding.budget import COMPILE_CHECKS, MEGA, MIN_COMPILE_UNITS, compile_units


def compile_budget(budget: float | None) -> dict:
    """`compile_source`'s `work` and `work_hint` for `--budget budget` (None: the default)."""
    return {"work": compile_units(budget), "work_hint": (
        f"raise --budget: a kernel's compile budget is {COMPILE_CHECKS:g} times it, in million units "
        f"(at least {MIN_COMPILE_UNITS / MEGA:g}; {compile_units(None) / MEGA:g} million at the default)")}


__all__ = ["compile_budget"]
