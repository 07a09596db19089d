# expect: proved
# The offset ray fill of ok_rays_offset_flat_index with its room stated against the launch itself: w == launch_dim(1) and start <= rays.shape[0] - launch_dim(0) * launch_dim(1). Proved through monotonicity of i * w against the launch size once w is a launch dim.
import warp as wp


@wp.kernel
def fill_rays_launch(rays: wp.array(dtype=wp.float32), start: wp.int32, w: wp.int32):
    wp.requires(wp.launch_dim(1) == w)
    wp.requires(start >= 0 and start <= rays.shape[0] - wp.launch_dim(0) * wp.launch_dim(1))
    i, j = wp.tid()
    rays[start + i * w + j] = 1.0
