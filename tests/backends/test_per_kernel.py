"""backends/per_kernel.py: a value computed once per kernel object, keyed by
identity, dropped with its object."""
from __future__ import annotations

import gc

from verikern.backends.per_kernel import per_kernel


class Box:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):            # equal boxes are still distinct kernels
        return isinstance(other, Box) and other.value == self.value

    __hash__ = None


def test_computed_once_per_object_and_dropped_with_it():
    calls: list[int] = []

    @per_kernel
    def doubled(box):
        """twice the value"""
        calls.append(box.value)
        return box.value * 2

    a, b = Box(3), Box(3)
    assert (doubled(a), doubled(a), doubled(b), doubled(a)) == (6, 6, 6, 6)
    assert calls == [3, 3]              # once for a, once for the equal but distinct b
    assert doubled.__doc__ == "twice the value" and doubled.__name__ == "doubled"
    cache = next(c.cell_contents for c in doubled.__closure__ if isinstance(c.cell_contents, dict))
    assert len(cache) == 2
    del a
    gc.collect()
    assert len(cache) == 1              # a's entry left with it


def test_an_object_without_weak_references_is_computed_every_time():
    calls: list[int] = []

    @per_kernel
    def plus_one(n):
        calls.append(n)
        return n + 1

    assert (plus_one(5), plus_one(5)) == (6, 6)
    assert calls == [5, 5]
