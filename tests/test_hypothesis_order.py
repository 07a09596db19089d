"""Derandomized or seeded hypothesis draws depend only on the seed and the
strategies, not on the modules the process imported before
(verikern.testing.reproducible): without that, CI's test order changed
test_edge_values_are_drawn's draws, and `verikern fuzz --seed N` would draw
other launches on an editable install than on a wheel."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from verikern.testing.reproducible import constant_pool_pinned, pool_is_pinnable


def _draws() -> list:
    seen: list = []

    @settings(max_examples=100, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(st.integers(-2**31, 2**31 - 1), st.floats(allow_nan=True),
                     st.one_of(st.integers(0, 64), st.sampled_from([-2**31, 2**31 - 1]))))
    def collect(value):
        seen.append(value)

    collect()
    return [repr(v) for v in seen]


def _polluted_pool():
    """The pool importing many local modules full of constants would give."""
    rnd = random.Random(7)
    pool = providers.Constants()
    pool.integers.update(rnd.randrange(-10**6, 10**6) for _ in range(400))
    pool.floats.update(rnd.uniform(-1e3, 1e3) for _ in range(400))
    return pool


def test_the_suite_draws_the_same_whatever_was_imported_before(monkeypatch):
    # the suite pins the pool process-wide (tests/conftest.py): filling Hypothesis's own
    # pool, as importing local modules does, changes nothing
    assert pool_is_pinnable()
    before = _draws()
    monkeypatch.setattr(providers, "_local_constants", _polluted_pool())
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        assert _draws() == before
    finally:
        providers.CONSTANTS_CACHE.cache.clear()


def test_a_pinned_block_ignores_module_constants_and_restores_the_hook(monkeypatch):
    with constant_pool_pinned():
        pinned = _draws()
    polluted = _polluted_pool()
    monkeypatch.setattr(providers, "_get_local_constants", lambda: polluted)
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        assert _draws() != pinned        # the pool really changes draws (the test can fail)
        with constant_pool_pinned():
            assert _draws() == pinned
        assert providers._get_local_constants() is polluted     # restored on exit
    finally:
        providers.CONSTANTS_CACHE.cache.clear()


def test_the_pinned_name_is_the_one_hypothesis_consults():
    # the private name verikern replaces is still the one HypothesisProvider calls
    code = providers.HypothesisProvider._local_constants.func.__code__
    assert "_get_local_constants" in code.co_names
