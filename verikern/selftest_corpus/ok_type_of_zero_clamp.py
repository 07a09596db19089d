# expect: proved
# Warp's generic spellings of a value's own type: `type(v)(1)` converts to v's type, `x.dtype(0.5)` to the array's element type, and `type(x[i])` computes x[i]'s address without reading it (inside the guard here), so every access is in bounds.
import warp as wp


@wp.kernel
def halve_plus_one(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        v = x[i] + type(x[i])(0)
        out[i] = v * x.dtype(0.5) + type(v)(1)
