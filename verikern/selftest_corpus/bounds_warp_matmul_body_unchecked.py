# expect: failed bounds
# The rotation kernel with the body index taken from an index array and never checked against rot: a body index past the matrices reads rot out of bounds. Witness: body=[1] with one matrix.
# bug: 14:9 bounds
# witness bounds: dim=1, block_dim=1, rot=zeros(float32, (1, 3, 3)), body=array(int32, [1]), pts=zeros(float32, (1, 3)), out=zeros(float32, (1, 3))
import warp as wp


@wp.kernel
def rotate_points_unchecked(rot: wp.array(dtype=wp.mat33), body: wp.array(dtype=wp.int32),
                            pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i >= pts.shape[0] or i >= out.shape[0] or i >= body.shape[0]:
        return
    r = rot[body[i]]
    out[i] = r @ pts[i] - pts[i] @ (r @ wp.transpose(r))
