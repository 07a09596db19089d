"""A typing to start from, for a generic kernel whose parameters need
different types (`positions` only type-checks as a vector, `cutoff` only as
a scalar): generic_kernels.py (`factorised`) and generic_opaque.py (the
carrier of the type-oblivious proof) search it here.

The search changes one parameter's type at a time, from every parameter at
its first candidate, and keeps a change when the body then type-checks
further: the checker types expressions in source order and stops at the
first it refuses, so a refusal after more typed expressions (`attempt`'s
progress) means the body typed further. It ends with the first typing that type-checks all through, or with
None when no single change goes further or `max_checks` typings were tried.

Invariant: a typing it returns is one `attempt` accepted (returned a HIR
kernel for); it never accepts a typing the checker refuses. It may miss a
typing (None): the caller then keeps what it had without one.
"""
from __future__ import annotations

from typing import Callable


def search_typing(pools: list[list], attempt: Callable, max_checks: int):
    """(typing, hir) of the first typing found (module docstring), or None.
    `pools`: per parameter, its candidate types, in order of preference;
    `attempt(typing) -> (hir | None, progress)`: the typed kernel, or how far
    the checker got before refusing it (a number that grows with progress)."""
    combo = [p[0] for p in pools]
    hir, reached = attempt(combo)
    checks = 1
    if hir is not None:
        return combo, hir
    while checks < max_checks:
        improved = False
        for i, pool in enumerate(pools):
            for t in pool:
                if t == combo[i] or checks >= max_checks:
                    continue
                trial = combo[:i] + [t] + combo[i + 1:]
                hir, progress = attempt(trial)
                checks += 1
                if hir is not None:
                    return trial, hir
                if progress > reached:
                    combo, reached, improved = trial, progress, True
                    break
        if not improved:
            return None
    return None
