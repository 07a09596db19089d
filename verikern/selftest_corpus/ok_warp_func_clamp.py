# expect: proved
# Clamps every element to [0, 1] in place through a @wp.func helper, written with warp names and `float` annotations.
import warp as wp


@wp.func
def clamp01(v: float) -> float:
    return wp.min(wp.max(v, 0.0), 1.0)


@wp.kernel
def clamp_all_wp(x: wp.array(dtype=float)):
    i = wp.tid()
    if i < x.shape[0]:
        x[i] = clamp01(x[i])
