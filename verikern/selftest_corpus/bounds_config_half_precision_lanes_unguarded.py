# expect: failed bounds
# A configuration choice whose non-default alternative is buggy: `scalar_t` is wp.float32 unless CORPUS_PRECISION says otherwise, and half precision packs 8 lanes per row while the kernel's guard only ensures 4 columns. The float32 and float64 instances are correct; the float16 one reads x[i, 7] of a 4-column row, so the kernel must fail, never be proved on its default configuration alone. Witness: one row of 4 halves.
# kernel: last_lane{scalar_t=float16}
# bug: 31:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float16, (1, 4)), out=zeros(float16, 1)
import os

import warp as wp

_PRECISIONS = {"half": wp.float16, "single": wp.float32, "double": wp.float64}


def _precision(value):
    if value is None:
        return wp.float32
    return _PRECISIONS[value.strip().lower()]


scalar_t = _precision(os.getenv("CORPUS_PRECISION"))

if scalar_t == wp.float16:
    LANES = 8
else:
    LANES = 4


@wp.kernel
def last_lane(x: wp.array2d(dtype=scalar_t), out: wp.array(dtype=scalar_t)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0] and x.shape[1] >= 4:
        out[i] = x[i, LANES - 1]
