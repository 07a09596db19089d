# expect: failed bounds
# The offset ray fill of ok_rays_offset_launch_size with one element too little room: start <= rays.shape[0] - launch_dim(0) * launch_dim(1) + 1. Witness: dim=(1, 1), rays.shape=(1,), start=1: thread (0, 0) writes rays[1].
# bug: 13:5 bounds
# witness bounds: dim=(1, 1), block_dim=1, rays=zeros(float32, 1), start=1, w=1
import warp as wp


@wp.kernel
def fill_rays_launch_one_short(rays: wp.array(dtype=wp.float32), start: wp.int32, w: wp.int32):
    wp.requires(wp.launch_dim(1) == w)
    wp.requires(start >= 0 and start <= rays.shape[0] - wp.launch_dim(0) * wp.launch_dim(1) + 1)
    i, j = wp.tid()
    rays[start + i * w + j] = 1.0
