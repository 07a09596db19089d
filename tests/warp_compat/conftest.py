"""Fixtures of the real-Warp equivalence tests."""
from __future__ import annotations

import pytest

from warp_compat.compat_util import init_warp


@pytest.fixture(scope="module")
def warp_cpu(tmp_path_factory):
    """Real warp-lang, initialised quietly with the suite's persistent kernel
    cache (tests/warp_kernel_cache.py; the test skips when Warp is not installed)."""
    wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")
    return init_warp(wp, tmp_path_factory)
