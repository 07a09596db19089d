# expect: refused
# TILE is bound to 16, and `globals()["TILE"] = 64` rebinds it before any launch: Warp reads 64, so x[i + TILE] runs 48 elements past the guard. Witness: importing the file leaves TILE == 64.
# refused: 13:22 rebind
import warp as wp

TILE = 16


@wp.kernel
def copy_tile(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i + 16 < x.shape[0] and i < y.shape[0]:
        y[i] = x[i + TILE]


globals()["TILE"] = 64
