"""A typing of a generic kernel whose body reads or writes a constant vector or
matrix component past its type: warpsphcore's `computeSPHCurlJVP_Kernel` reads
`G[1]` of the vec1 gradient its `particleDataSoA_1` typing makes (a 2-d curl
formula). Warp 1.19 builds that typing: its `extract` takes any int index and
checks the range only in a debug build (`native/vec.h`, an assert), so a
release build reads past the vector when the statement runs
(tests/warp_compat/test_warp_component_range_typing.py builds and runs one).
A typing Warp builds is one users can launch, so it is never left out of a
generic kernel's instances: the struct typing search (generic_struct_candidates.py)
checks it again here, where each such constant index is a run-time index whose
range is an obligation ("vector index in range", check/dynamic_components.py),
which fails wherever the read or write is reached and holds where it is not.

In a kernel (or a typing) the user wrote, a constant component past the type
stays the located `component-range` error (BodyChecker's default); the search
for typings still takes it as a refusal pointing at another typing
(generic_kernels.furthest_refusal_is_typing).

Invariants:
- only a typing refused with `component-range` is checked again, and only
  indices past the end become obligations (a negative constant, which Warp
  wraps and verikern refuses, stays the error);
- the funcs checked again under this checker are kept apart from the
  registry's cache (their HIR holds obligations the default checker's would
  not): the cache is restored after the check, keeping only the funcs the
  default checker had accepted, which have no such index and check alike.
"""
from __future__ import annotations

from verikern.errors import KernelError
from .body import BodyChecker


class ObligingChecker(BodyChecker):
    """The body checker with a constant component past its type as an obligation."""

    component_obligations = True
    typed = 0       # generic_kernels._Enumerator.attempt reads the progress of its checker


def checked_with_obligations(e, types: dict):
    """The typing `types` of the generic kernel of the enumerator `e`
    (generic_kernels._Enumerator) checked with ObligingChecker, as `e.check` answers:
    (hir, None), (None, its error), or (None, None) for a type refusal further on (a
    typing Warp cannot build either)."""
    from .generic_kernels import TYPE_RULES  # lazy: generic_kernels imports this module's caller (a cycle)
    registry = e.registry
    cache = registry._done
    registry._done = {k: v for k, v in cache.items() if not isinstance(v, KernelError)}
    try:
        hir, err = e.attempt(types, checker=ObligingChecker)
    finally:
        registry._done = cache
    return (None, None) if err is not None and err.rule in TYPE_RULES else (hir, err)
