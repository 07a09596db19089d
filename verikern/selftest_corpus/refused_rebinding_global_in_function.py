# expect: refused
# N is bound to 4, but _configure() runs at import time and rebinds it to 8 through `global N`: Warp builds fill with N == 8, and a proof for N == 4 would claim more than it proved. Witness: importing the file leaves N == 8.
# refused: 13:16 rebind
import warp as wp

N = 4


@wp.kernel
def fill_first(out: wp.array(dtype=float)):
    i = wp.tid()
    if i < out.shape[0]:
        if i < N:
            out[i] = 1.0


def _configure():
    global N
    N = 8


_configure()
