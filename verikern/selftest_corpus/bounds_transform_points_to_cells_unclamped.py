# expect: failed bounds
# Moves each particle by its body's transform and counts it in the cell of its x coordinate, checking only c < n: a transform that moves a particle to negative x gives a negative cell. Witness: one body translated to x = -2 with the identity rotation: thread 0 adds to counts[-2].
# bug: 18:13 bounds
# witness bounds: dim=1, block_dim=1, xs=array(float32, [[-2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]), pts=zeros(float32, (1, 3)), counts=zeros(int32, 1), n=1
import warp as wp


@wp.kernel
def bin_transformed_unclamped(xs: wp.array(dtype=wp.transform), pts: wp.array(dtype=wp.vec3),
                              counts: wp.array(dtype=wp.int32), n: wp.int32):
    wp.requires(counts.shape[0] == n)
    wp.requires(xs.shape[0] == pts.shape[0])
    i = wp.tid()
    if i < pts.shape[0]:
        p = wp.transform_point(xs[i], pts[i])
        c = int(p[0])
        if c < n:
            wp.atomic_add(counts, c, 1)
