"""A value computed once per MIR kernel object (the launch path's memo).

`per_kernel(compute)` returns a function f with f(kernel) == compute(kernel):
computed at the first call for that kernel object and kept while the object
lives. Keyed by identity, not equality (hashing a frozen Kernel would hash
its whole CFG at every launch); an entry leaves with its kernel. An object
that cannot be weakly referenced is computed at every call. Two threads may
compute the same entry at once; both get equal values (compute must be a
pure function of the kernel).
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def per_kernel(compute: Callable[[Any], T]) -> Callable[[Any], T]:
    """See the module doc."""
    cache: dict[int, tuple[weakref.ref, T]] = {}

    def lookup(kernel) -> T:
        hit = cache.get(id(kernel))
        if hit is not None and hit[0]() is kernel:
            return hit[1]
        value = compute(kernel)
        key = id(kernel)
        try:
            cache[key] = (weakref.ref(kernel, lambda _ref: cache.pop(key, None)), value)
        except TypeError:   # not weak-referenceable: computed again at the next call
            pass
        return value

    lookup.__doc__ = compute.__doc__
    lookup.__name__ = compute.__name__
    return lookup
