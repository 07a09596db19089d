"""Funcs and a kernel generic over a vector's length, for verikern's compatibility
suite (the shape of warpSPHCore's `vector(dtype=scalar_t, length=Any)` parameters
and its `minimumImageDistance`, written anew): an overload taking any float32
vector beside a float32 one, `x.length` as a constant of the instance, and
`wp.vector(..., length=x.length, dtype=...)`. Valid Warp and valid verikern."""
from typing import Any

import warp as wp
from warp.types import vector

import verikern as vk


@wp.func
def half_span(x: vector(length=Any, dtype=wp.float32), y: vector(length=Any, dtype=wp.float32)):
    d = wp.vector(wp.float32(0.0), length=x.length, dtype=wp.float32)
    for k in range(x.length):
        d[k] = 0.5 * (x[k] - y[k])
    return d


@wp.func
def half_span(x: wp.float32, y: wp.float32):  # noqa: F811  (a Warp overload)
    return 0.5 * (x - y)


@vk.requires(lambda a, b, out: a.shape[0] == b.shape[0] and out.shape[0] == a.shape[0])
@wp.kernel
def spans(a: wp.array(dtype=vector(dtype=wp.float32, length=Any)),
          b: wp.array(dtype=vector(dtype=wp.float32, length=Any)), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0]:
        h = half_span(a[i], b[i])
        out[i] = wp.dot(h, h) + half_span(out[i], 1.0) + wp.float32(h.length)
