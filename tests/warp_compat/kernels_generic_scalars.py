"""Generic kernels for tests/warp_compat/test_warp_generic_scalars.py: each
applies one of Warp's typing rules that verikern's generic_scalars.py
relies on to two generic values."""
from typing import Any

import warp as wp


@wp.kernel
def add_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] + b[i]


@wp.kernel
def sub_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] - b[i]


@wp.kernel
def mul_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] * b[i]


@wp.kernel
def div_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] / b[i]


@wp.kernel
def floordiv_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] // b[i]


@wp.kernel
def mod_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] % b[i]


@wp.kernel
def min_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.min(a[i], b[i])


@wp.kernel
def max_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.max(a[i], b[i])


@wp.kernel
def where_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.where(i > 0, a[i], b[i])


@wp.kernel
def ternary_two(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] if i > 0 else b[i]


@wp.kernel
def exp_of(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.exp(a[i])


@wp.kernel
def sqrt_of(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.sqrt(a[i])


@wp.kernel
def rebind_straight(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    x = a[i]
    x = b[i]
    out[i] = x


@wp.kernel
def rebind_in_branches(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i > 0:
        x = a[i]
        out[i] = x
    else:
        x = b[i]
        out[i] = x


@wp.kernel
def rebind_in_loop(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    x = a[i]
    for k in range(3):
        x = b[i]
    out[i] = x
