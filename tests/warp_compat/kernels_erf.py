"""wp.erf and wp.erfc in float32 and float64, in the shape of an Ewald real-space
force (erfc(alpha r) / r plus its Gaussian term)."""
import warp as wp

import verikern as vk


@vk.requires(lambda r, out: r.shape[0] == vk.launch_dim() and out.shape[0] == vk.launch_dim())
@wp.kernel
def erf_f32(r: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.erf(r[i]) + wp.float32(2.0) * wp.erfc(r[i])


@vk.requires(lambda r, out: r.shape[0] == vk.launch_dim() and out.shape[0] == vk.launch_dim())
@wp.kernel
def ewald_f64(alpha: wp.float64, r: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    d = r[i]
    ar = alpha * d
    s = wp.erfc(ar) / (d * d * d) + wp.float64(1.1283791670955126) * alpha * wp.exp(-ar * ar) / (d * d)
    out[i] = s + wp.erf(ar)
