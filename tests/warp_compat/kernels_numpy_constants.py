"""numpy's and math's float constants read in kernel code (`np.pi`, `np.e`,
`np.inf`, `np.nan`, `math.tau`; warpsphcore's `scalar_t(np.nan)` and
`scalar_t(np.pi)`), in a @wp.func and in the kernel, as float32 and float64
values (tests/warp_compat/test_warp_numpy_constants.py against warp-lang,
tests/frontend/test_fe_numpy_constants.py by hand)."""
import math

import numpy as np
import warp as wp


@wp.func
def area(r: wp.float64):
    return wp.float64(np.pi) * r * r


@wp.kernel
def constants(x: wp.array(dtype=wp.float32), r: wp.array(dtype=wp.float64),
              out: wp.array(dtype=wp.float32, ndim=2), out64: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i, 0] = x[i] * np.pi
    out[i, 1] = wp.float32(np.e) + x[i]
    out[i, 2] = wp.where(x[i] > 0.0, wp.float32(np.nan), x[i])
    out[i, 3] = wp.min(x[i], np.inf)
    out[i, 4] = x[i] / wp.float32(math.tau)
    out[i, 5] = wp.float32(int(np.pi))
    out64[i] = area(r[i])
