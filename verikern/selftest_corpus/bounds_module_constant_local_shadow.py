# expect: failed bounds
# set_radius binds a local RADIUS (no `global`), so the module constant stays 2 and the kernel reads 2: the guard allows a radius of 1 only. Witness: dim=4, x.shape=y.shape=(4,): thread 2 reads x[4].
# bug: 19:16 bounds
# witness bounds: dim=4, block_dim=4, x=zeros(float32, 4), y=zeros(float32, 4)
import warp as wp

RADIUS = 2


def set_radius(r):
    RADIUS = r  # noqa: F841 (a local: the module constant is unchanged)
    return RADIUS


@wp.kernel
def blur_right(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i + 1 < x.shape[0] and i < y.shape[0]:
        y[i] = x[i + RADIUS]
