# expect: failed bounds
# halo(1) calls the int overload, as Warp does (a bare 1 is int32), not the float one declared first: the halo is 2 cells and the guard allows only 1. Witness: dim=4, x.shape=y.shape=(4,): thread 2 reads x[4].
# bug: 23:16 bounds
# witness bounds: dim=4, block_dim=4, x=zeros(float32, 4), y=zeros(float32, 4)
import warp as wp


@wp.func
def halo(scale: float) -> int:
    return int(scale)


@wp.func
def halo(cells: int) -> int:  # noqa: F811 (a Warp overload)
    return cells * 2


@wp.kernel
def smooth_halo(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    h = halo(1)
    if i + 1 < x.shape[0] and i < y.shape[0]:
        y[i] = x[i + h]
