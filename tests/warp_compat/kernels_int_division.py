"""Integer `/`, `//` and `%` of one element pair per type, for
tests/warp_compat/test_warp_int_division.py (valid Warp and verikern)."""
import warp as wp


@wp.kernel
def divide_int8(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.int8), out: wp.array(dtype=wp.int8)):
    out[0] = a[0] / b[0]
    out[1] = a[0] // b[0]
    out[2] = a[0] % b[0]


@wp.kernel
def divide_int16(a: wp.array(dtype=wp.int16), b: wp.array(dtype=wp.int16), out: wp.array(dtype=wp.int16)):
    out[0] = a[0] / b[0]
    out[1] = a[0] // b[0]
    out[2] = a[0] % b[0]


@wp.kernel
def floordiv_int32(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    out[0] = a[0] // b[0]


@wp.kernel
def mod_int64(a: wp.array(dtype=wp.int64), b: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64)):
    out[0] = a[0] % b[0]
