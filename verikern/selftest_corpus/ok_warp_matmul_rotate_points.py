# expect: proved
# Rotates each point by its body's matrix with the `@` operator (Warp's `mul`: matrix times vector, and the transposed product as vector times matrix), each thread guarded by both array lengths.
import warp as wp


@wp.kernel
def rotate_points(rot: wp.array(dtype=wp.mat33), body: wp.array(dtype=wp.int32),
                  pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i >= pts.shape[0] or i >= out.shape[0] or i >= body.shape[0]:
        return
    b = body[i]
    if b < 0 or b >= rot.shape[0]:
        return
    r = rot[b]
    out[i] = r @ pts[i] - pts[i] @ (r @ wp.transpose(r))
