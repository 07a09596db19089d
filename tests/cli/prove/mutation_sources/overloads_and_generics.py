"""Correct kernels that call an overloaded @wp.func with a float literal and
read integer keys (mutation source: the `overload-literal` and `generic-any`
operators have their sites here)."""
from typing import Any  # noqa: F401 (a module that writes generic kernels)

import warp as wp


@wp.func
def reach(scale: float) -> int:
    return 1


@wp.func
def reach(cells: int) -> int:  # noqa: F811 (a Warp overload)
    return cells + 1


@wp.kernel
def step_right(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    r = reach(1.0)
    if i < x.shape[0] - 1 and i < y.shape[0]:
        y[i] = x[i + r]


@wp.kernel
def gather_doubled(keys: wp.array(dtype=wp.int32), table: wp.array(dtype=float),
                   out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] - int(k):
            out[i] = table[int(k + k)]
