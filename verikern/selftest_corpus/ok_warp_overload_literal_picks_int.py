# expect: proved
# halo(1) calls the int overload, as Warp does (a bare 1 is int32): the guard covers its 2 cells.
import warp as wp


@wp.func
def halo(scale: float) -> int:
    return int(scale)


@wp.func
def halo(cells: int) -> int:  # noqa: F811 (a Warp overload)
    return cells * 2


@wp.kernel
def smooth_halo_guarded(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    h = halo(1)
    if i < x.shape[0] - h and i < y.shape[0]:
        y[i] = x[i + h]
