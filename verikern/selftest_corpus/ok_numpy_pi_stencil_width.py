# expect: proved
# A three-point smoothing stencil guarded by int(np.pi) <= a.shape[0] - i: numpy's pi read in kernel code as Warp reads it (a float constant, 3.14159...), so int(np.pi) is 3 and the guard covers a[i + 2]; the mean divides by np.pi, and a row past the end is marked np.nan.
import numpy as np
import verikern as vk


@vk.kernel
def smooth_pi_wide(a: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < out.shape[0]:
        if i < a.shape[0] and int(np.pi) <= a.shape[0] - i:
            out[i] = (a[i] + a[i + 1] + a[i + 2]) / float(np.pi)
        else:
            out[i] = float(np.nan)
