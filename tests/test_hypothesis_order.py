"""A derandomized hypothesis test draws the same examples whatever the process
imported before it (tests/conftest.py pins Hypothesis's local-constants pool):
without that, CI's test order changed test_edge_values_are_drawn's draws."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers


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


def test_draws_do_not_depend_on_the_local_modules_imported_before():
    before = _draws()
    pool = providers._local_constants
    saved = (set(pool.integers), set(pool.floats))
    rnd = random.Random(7)
    try:
        # what importing many local modules full of constants would add to the pool
        pool.integers.update(rnd.randrange(-10**6, 10**6) for _ in range(400))
        pool.floats.update(rnd.uniform(-1e3, 1e3) for _ in range(400))
        providers.CONSTANTS_CACHE.cache.clear()
        assert _draws() == before
    finally:
        pool.integers.clear()
        pool.integers.update(saved[0])
        pool.floats.clear()
        pool.floats.update(saved[1])
        providers.CONSTANTS_CACHE.cache.clear()


def test_the_pinned_pool_is_what_hypothesis_consults():
    # the private name the suite replaces is still the one HypothesisProvider calls
    assert providers.HypothesisProvider._local_constants.func.__code__.co_names.count(
        "_get_local_constants") == 1
    assert not providers._get_local_constants().integers
