# expect: refused
# HALO is bound to 1, then a later `from errno import ENOENT as HALO` rebinds it to 2 (errno.ENOENT): the kernel's guard admits one cell of halo but it reads two. Witness: importing the file leaves HALO == 2.
# refused: 13:22 rebind
import warp as wp

HALO = 1


@wp.kernel
def shift_left(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i + 1 < x.shape[0] and i < y.shape[0]:
        y[i] = x[i + HALO]


from errno import ENOENT as HALO  # noqa: E402,F811 (the rebinding under test)
