# expect: proved
# Moves each particle by its body's transform (wp.transform_point) and counts it in one of n cells along x; the float coordinate's cell is clamped into [0, n).
import warp as wp


@wp.kernel
def bin_transformed(xs: wp.array(dtype=wp.transform), pts: wp.array(dtype=wp.vec3),
                    counts: wp.array(dtype=wp.int32), n: wp.int32):
    wp.requires(n > 0)
    wp.requires(counts.shape[0] == n)
    wp.requires(xs.shape[0] == pts.shape[0])
    i = wp.tid()
    if i < pts.shape[0]:
        p = wp.transform_point(xs[i], pts[i])
        c = wp.clamp(int(p[0]), 0, n - 1)
        wp.atomic_add(counts, c, 1)
