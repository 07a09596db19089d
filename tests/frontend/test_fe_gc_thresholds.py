"""compile_source raises the garbage collector's thresholds while it
compiles (real projects build millions of long-lived objects) and puts the
caller's back afterwards, also when compiling fails."""
from __future__ import annotations

import gc

import pytest

from verikern.frontend import driver

SOURCE = """\
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a[i] = i
"""


def test_thresholds_raised_while_compiling_and_restored(monkeypatch):
    seen = []
    real = driver._compile_source

    def spy(*args, **kwargs):
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)

    monkeypatch.setattr(driver, "_compile_source", spy)
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        module = driver.compile_source(SOURCE, "t.py")
        assert module.kernel("k").ok
        assert seen == [(50_000, 20, 20)]
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(100_000, 5, 50)         # a caller's higher values are kept
        driver.compile_source(SOURCE, "t.py")
        assert seen[-1] == (100_000, 20, 50)
        assert gc.get_threshold() == (100_000, 5, 50)
    finally:
        gc.set_threshold(*before)


def test_thresholds_restored_when_compiling_raises(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(driver, "_compile_source", boom)
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        driver.compile_source(SOURCE, "t.py")
    assert gc.get_threshold() == before
