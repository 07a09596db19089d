"""Hypothesis draws that depend only on the seed and the strategies.

Hypothesis (6.131 and later) mixes into its draws the numeric constants of
every *local* module the process has imported so far: any module outside
site-packages and the standard library, which includes verikern itself on an
editable install and the user's kernel files. The same derandomized test, or
the same `verikern fuzz --seed N`, then draws different launches depending on
how verikern was installed and on what the process imported before (the
test suite saw it: a test's draws changed with the tests that ran before it
in the same worker).

Invariant: inside `constant_pool_pinned()` (and after `pin_constant_pool()`)
that module-derived pool is empty; Hypothesis's own built-in constants and
everything else it does are unchanged. Where a Hypothesis version has no such
pool, nothing is patched and `pool_is_pinnable()` is False.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

_HOOK = "_get_local_constants"


def _providers():
    """Hypothesis's provider module, where the pool lives."""
    from hypothesis.internal.conjecture import providers  # lazy: hypothesis, heavy

    return providers


def pool_is_pinnable() -> bool:
    """Whether this Hypothesis draws module constants that can be pinned."""
    providers = _providers()
    return hasattr(providers, _HOOK) and hasattr(providers, "Constants")


def _empty_pool_getter():
    providers = _providers()
    empty = providers.Constants()
    return lambda: empty


def _clear_cache(providers) -> None:
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None:
        cache.cache.clear()


def pin_constant_pool() -> None:
    """Pin the pool empty for the rest of the process (the test suite's choice)."""
    if pool_is_pinnable():
        providers = _providers()
        setattr(providers, _HOOK, _empty_pool_getter())
        _clear_cache(providers)


@contextmanager
def constant_pool_pinned() -> Iterator[None]:
    """Within the block, draws do not depend on the modules imported so far."""
    if not pool_is_pinnable():
        yield
        return
    providers = _providers()
    saved = getattr(providers, _HOOK)
    setattr(providers, _HOOK, _empty_pool_getter())
    _clear_cache(providers)
    try:
        yield
    finally:
        setattr(providers, _HOOK, saved)
        _clear_cache(providers)
