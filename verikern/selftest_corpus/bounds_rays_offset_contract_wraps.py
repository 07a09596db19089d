# expect: failed bounds
# The same offset fill as ok_rays_offset_flat_index, but its contract is written start + w * h <= rays.shape[0], which wraps in int32 for a start near 2**31 and then holds for any buffer. Witness: dim=(1, 1), start=2**31 - 1, rays.shape=(1,): start + 1 wraps to -2**31 <= 1, and thread (0, 0) writes rays[2147483647].
# bug: 13:5 bounds
# witness bounds: dim=(1, 1), block_dim=1, rays=zeros(float32, 1), start=2147483647, w=1, h=1
import warp as wp


@wp.kernel
def fill_rays_wrapping_contract(rays: wp.array(dtype=wp.float32), start: wp.int32, w: wp.int32, h: wp.int32):
    wp.requires(wp.launch_dim(0) == h and wp.launch_dim(1) == w)
    wp.requires(start >= 0 and start + w * h <= rays.shape[0])
    i, j = wp.tid()
    rays[start + i * w + j] = 1.0
