# expect: proved
# Writes a block of rays stored row-major at an offset in one flat buffer (rays[start + i * w + j]), launched as dim=(h, w): the launch size limit keeps w * h from wrapping, and start <= rays.shape[0] - w * h leaves room for every row. Proved by the integer relaxation of the abstract query (a linear proof that costs millions of units bit-blasted).
import warp as wp


@wp.kernel
def fill_rays(rays: wp.array(dtype=wp.float32), start: wp.int32, w: wp.int32, h: wp.int32):
    wp.requires(wp.launch_dim(0) == h and wp.launch_dim(1) == w)
    wp.requires(start >= 0 and start <= rays.shape[0] - w * h)
    i, j = wp.tid()
    rays[start + i * w + j] = 1.0
