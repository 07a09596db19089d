"""`wp.atan2` as Warp code calls it (positional, keywords, float32 and
float64), for verikern's compatibility suite."""
import warp as wp

import verikern as vk


@vk.requires(lambda y, x, out, out64: y.shape[0] == vk.launch_dim() and x.shape[0] == y.shape[0])
@vk.requires(lambda y, out, out64: out.shape[0] == y.shape[0] and out64.shape[0] == y.shape[0])
@wp.kernel
def angles(y: wp.array[float], x: wp.array[float], out: wp.array[float],
           out64: wp.array[wp.float64]):
    i = wp.tid()
    out[i] = wp.atan2(y[i], x[i])
    out64[i] = wp.atan2(y=wp.float64(y[i]), x=wp.float64(x[i]))
