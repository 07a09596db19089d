# expect: failed bounds
# Zeroes a 4-D array launched without a guard; the requires ties launch dims 1 and 2 to the wrong array dims (2 and 1). Witness: dim=(1, 2, 1, 1), x.shape=(1, 1, 2, 1): thread (0, 1, 0, 0) writes x[0, 1, 0, 0].
# bug: 12:5 bounds
# witness bounds: dim=(1, 2, 1, 1), block_dim=2, x=zeros(float32, (1, 1, 2, 1))
import warp as wp


@wp.kernel
def zero_batch_exact(x: wp.array(dtype=wp.float32, ndim=4)):
    wp.requires(wp.launch_dim(0) == x.shape[0] and wp.launch_dim(1) == x.shape[2] and wp.launch_dim(2) == x.shape[1] and wp.launch_dim(3) == x.shape[3])
    b, i, j, k = wp.tid()
    x[b, i, j, k] = 0.0
