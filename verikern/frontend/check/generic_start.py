"""A typing to start from, for a generic kernel whose parameters need
different types (`positions` only type-checks as a vector, `cutoff` only as
a scalar): generic_kernels.py (`factorised`) and generic_opaque.py (the
carrier of the type-oblivious proof) search it here.

The search changes one parameter's type at a time, from every parameter at
its first candidate. Each step tries the single changes among the few
preferred candidates first and, only when none of those types the body
further, among all candidates (so one wide step -- a mat33 cell -- does not
make every later step wide and spend the checks: nvalchemi's NPT kernels
need vec3 velocities and forces, a mat33 cell and float32 scalars across 8
parameters); of the single changes tried it keeps the one with which the
body type-checks furthest (ties: the first, in parameter then candidate
order), and goes on from there: the checker types expressions in source
order and stops at the first it refuses, so a refusal after more typed
expressions (`attempt`'s progress) means the body typed further. It ends
with the first typing that type-checks all through, or with None when no
single change goes further or `max_checks` typings were tried. When no
single change goes further, two parameters are changed at once among the
preferred candidates (`v + dt * a` stored into `out` needs `v` and `out`
vec3 together) before the search gives up.

A directed search (`implicated` given: the caller's second try, for a kernel
the plain search found nothing for) first changes, at every step, only the
parameters the current typing's refusal points at (generic_hints.py: the
statement refused reads or writes them), one at a time among all their
candidates and then two at a time among the preferred ones, before the plain
step: `P[0] - P_ext[0]` needs both `P` and `P_ext` a vec9, which one change
among all parameters and all candidates finds only after the check budget.

Invariant: a typing it returns is one `attempt` accepted (returned a HIR
kernel for); it never accepts a typing the checker refuses. It may miss a
typing (None): the caller then keeps what it had without one.
"""
from __future__ import annotations

import itertools
from typing import Callable


def search_typing(pools: list[list], attempt: Callable, max_checks: int, first: int = 3,
                  start: list | None = None, implicated: Callable | None = None):
    """(typing, hir) of the first typing found (module docstring), or None.
    `pools`: per parameter, its candidate types, in order of preference (the
    search tries the `first` candidates of each pool, then, within what is
    left of `max_checks`, all of them);
    `attempt(typing) -> (hir | None, progress)`: the typed kernel, or how far
    the checker got before refusing it (a number, or a tuple compared in order, that grows with progress);
    `start`: the typing to start from (default: each pool's first candidate);
    `implicated(typing) -> [[parameter index]]`: the parameters its refusal points at,
    in tiers to try in order (a directed search, module docstring)."""
    combo = list(start) if start is not None else [p[0] for p in pools]
    hir, reached = attempt(combo)
    if hir is not None:
        return combo, hir
    checks = [1]
    while checks[0] < max_checks:
        step = None
        if implicated is not None:
            step = _directed_step(pools, attempt, max_checks, checks, combo, reached, implicated, first)
        for width in (first, None) if step is None else ():
            step = _step([p[:width] for p in pools], attempt, max_checks, checks, combo, reached)
            if step is not None:
                break
        if step is None:        # two parameters that must change together (`v` and `out` both vec3)
            step = _pair_step([p[:first] for p in pools], attempt, max_checks, checks, combo, reached)
        if step is None:
            return None
        if step[0] is None:         # a typing that type-checks all through
            return step[1], step[2]
        reached, combo = step[0], step[1]
    return None


def _furthest(trials, attempt, max_checks, checks, reached):
    """The first of `trials` that type-checks, as (None, typing, hir), else (progress,
    typing) of the one that typed furthest past `reached`, else None; at most
    `max_checks` checks in all (`checks[0]` counts them)."""
    best = None
    for trial in trials:
        if checks[0] >= max_checks:
            break
        hir, progress = attempt(trial)
        checks[0] += 1
        if hir is not None:
            return None, trial, hir
        if progress > reached and (best is None or progress > best[0]):
            best = (progress, trial)
    return best


def _step(pools, attempt, max_checks, checks, combo, reached):
    """One step from `combo`: every typing that changes one parameter (_furthest)."""
    trials = (combo[:i] + [t] + combo[i + 1:]
              for i, pool in enumerate(pools) for t in pool if t != combo[i])
    return _furthest(trials, attempt, max_checks, checks, reached)


def _changed_pair(combo, i, t, j, u):
    trial = list(combo)
    trial[i], trial[j] = t, u
    return trial


def _pair_step(pools, attempt, max_checks, checks, combo, reached):
    """Like _step, changing two parameters at once among the preferred candidates: a
    typing where `v + a` stores into `out` needs `v` and `out` vec3 together, and
    neither change alone types the body further."""
    trials = (_changed_pair(combo, i, t, j, u)
              for i, j in itertools.combinations(range(len(pools)), 2)
              for t in pools[i] if t != combo[i]
              for u in pools[j] if u != combo[j])
    return _furthest(trials, attempt, max_checks, checks, reached)


def _directed_step(pools, attempt, max_checks, checks, combo, reached, implicated, first):
    """A step that changes only the parameters `combo`'s refusal points at, tier by tier
    (the ones the refused statement names first): one of them among all its candidates,
    else two among the preferred candidates (_furthest)."""
    tiers = implicated(combo)
    checks[0] += 1          # implicated checks `combo` again to find its refusal
    for tier in tiers:
        focus = set(tier)
        step = _step([p if i in focus else [] for i, p in enumerate(pools)], attempt, max_checks,
                     checks, combo, reached)
        if step is None and len(focus) > 1:
            step = _pair_step([p[:first] if i in focus else [] for i, p in enumerate(pools)], attempt,
                              max_checks, checks, combo, reached)
        if step is not None:
            return step
    return None
