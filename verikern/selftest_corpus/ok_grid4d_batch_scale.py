# expect: proved
# Scales a batch of 3-D fields (a 4-D array: batch, depth, rows, cols) from a 4-D launch; each thread owns one element and checks all four dimensions.
import warp as wp


@wp.kernel
def batch_scale(x: wp.array(dtype=wp.float32, ndim=4), s: wp.float32):
    b, i, j, k = wp.tid()
    if b < x.shape[0] and i < x.shape[1] and j < x.shape[2] and k < x.shape[3]:
        x[b, i, j, k] = s * x[b, i, j, k]
