"""A typing to start from, for a generic kernel whose parameters need
different types (`positions` only type-checks as a vector, `cutoff` only as
a scalar): generic_kernels.py (`factorised`) and generic_opaque.py (the
carrier of the type-oblivious proof) search it here.

The search changes one parameter's type at a time, from every parameter at
its first candidate, first among the few preferred candidates, then among
all; of all single changes it keeps the one with which the body
type-checks furthest (ties: the first, in parameter then candidate order),
and goes on from there: the checker types expressions in source order and
stops at the first it refuses, so a refusal after more typed expressions
(`attempt`'s progress) means the body typed further. It ends with the first
typing that type-checks all through, or with None when no single change
goes further or `max_checks` typings were tried.

Invariant: a typing it returns is one `attempt` accepted (returned a HIR
kernel for); it never accepts a typing the checker refuses. It may miss a
typing (None): the caller then keeps what it had without one.
"""
from __future__ import annotations

from typing import Callable


def search_typing(pools: list[list], attempt: Callable, max_checks: int, first: int = 3,
                  start: list | None = None):
    """(typing, hir) of the first typing found (module docstring), or None.
    `pools`: per parameter, its candidate types, in order of preference (the
    search tries the `first` candidates of each pool, then, within what is
    left of `max_checks`, all of them);
    `attempt(typing) -> (hir | None, progress)`: the typed kernel, or how far
    the checker got before refusing it (a number that grows with progress);
    `start`: the typing to start from (default: each pool's first candidate)."""
    combo = list(start) if start is not None else [p[0] for p in pools]
    hir, reached = attempt(combo)
    if hir is not None:
        return combo, hir
    checks = [1]
    for width in (first, None):
        found = _climb([p[:width] for p in pools], attempt, max_checks, checks, combo, reached)
        if found is not None:
            return found
    return None


def _climb(pools, attempt, max_checks, checks, combo, reached):
    while checks[0] < max_checks:
        best = None
        for i, pool in enumerate(pools):
            for t in pool:
                if t == combo[i] or checks[0] >= max_checks:
                    continue
                trial = combo[:i] + [t] + combo[i + 1:]
                hir, progress = attempt(trial)
                checks[0] += 1
                if hir is not None:
                    return trial, hir
                if progress > reached and (best is None or progress > best[0]):
                    best = (progress, trial)
        if best is None:
            return None
        reached, combo = best
    return None
