# expect: proved
# A kernel whose element type is a configuration choice read from source (warpsphcore's type_config.py): `scalar_t` is wp.float32 unless the environment variable CORPUS_PRECISION names another precision, and a module-level `if scalar_t == wp.float16:` picks the lanes per row. verikern compiles one instance per precision, the default (float32) first, each with its own LANES, and proves each.
# kernel: axpy_rows{scalar_t=float64}
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
def axpy_rows(x: wp.array2d(dtype=scalar_t), y: wp.array2d(dtype=scalar_t), a: scalar_t):
    i, j = wp.tid()
    if i < x.shape[0] and i < y.shape[0] and j < LANES and j < x.shape[1] and j < y.shape[1]:
        y[i, j] = a * x[i, j] + y[i, j]
