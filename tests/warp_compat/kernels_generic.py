"""Warp's overloaded and generic funcs and kernels, for verikern's
compatibility suite: @wp.func overloads by parameter type, `typing.Any`
funcs specialized per call, and a generic kernel instantiated with
wp.overload."""
from typing import Any

import warp as wp

import verikern as vk


@wp.func
def twice(x: float) -> float:
    return x * 2.0


@wp.func
def twice(x: int) -> int:  # noqa: F811 (a Warp overload)
    return x * 3


@wp.func
def combine(a: Any, b: Any):
    return a + b


@wp.func
def count(a: wp.array[Any]):
    return a.shape[0]


@vk.requires(lambda a, b, out: a.shape[0] == vk.launch_dim() and out.shape[0] == a.shape[0])
@vk.requires(lambda b, out: b.shape[0] == out.shape[0])
@wp.kernel
def overloaded(a: wp.array[float], b: wp.array[int], out: wp.array[float]):
    i = wp.tid()
    out[i] = twice(a[i]) + float(twice(b[i])) + combine(0.5, 0.25) + float(combine(2, 3))
    b[i] = count(a) + count(out)


@vk.requires(lambda a, c: a.shape[0] == vk.launch_dim() and c.shape[0] == a.shape[0])
@wp.kernel
def generic_shift(a: wp.array[Any], b: Any, c: wp.array[Any]):
    i = wp.tid()
    c[i] = combine(a[i], b)


wp.overload(generic_shift, [wp.array[wp.int32], wp.int32, wp.array[wp.int32]])
wp.overload(generic_shift, {"a": wp.array[wp.vec3], "b": wp.vec3, "c": wp.array[wp.vec3]})
