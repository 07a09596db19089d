"""Kernels reading the project's constants and funcs, relatively and absolutely."""
import warp as wp

from .consts import OFFSET, SCALE, Mode
from .math import safe_div
from vkproj.consts import HALF_SCALE


@wp.kernel
def shifted_scale(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i + OFFSET < out.shape[0] and i < x.shape[0]:
        out[i + OFFSET] = safe_div(x[i], SCALE) + HALF_SCALE


@wp.kernel
def shifted_scale_unchecked(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < out.shape[0] and i < x.shape[0]:
        out[i + OFFSET] = safe_div(x[i], SCALE)


@wp.kernel
def by_mode(x: wp.array(dtype=float), out: wp.array(dtype=float), mode: int):
    i = wp.tid()
    if i < out.shape[0] and i < x.shape[0]:
        if mode == Mode.DOUBLE:
            out[i] = x[i] * 2.0
        else:
            out[i] = x[i]



@wp.kernel
def first_n(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < n:
        out[i] = safe_div(x[i + OFFSET], SCALE)
