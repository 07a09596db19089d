"""saxpy as Warp code is written -- one thread per element, the host launching
`dim == len(x)` -- with the contract `verikern prove` suggested for it (README,
"From a failed Warp kernel to a proof"). The decorator returns the kernel
unchanged, so Warp runs the file as before:

    python docs/examples/warp_saxpy_contract.py         # real Warp, CPU device
    verikern prove docs/examples/warp_saxpy_contract.py  # PROVED
"""
import numpy as np
import warp as wp

import verikern as vk


@vk.requires(lambda x, y: vk.launch_dim() <= x.shape[0] and vk.launch_dim() <= y.shape[0])
@wp.kernel
def saxpy(x: wp.array[float], y: wp.array[float], a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


if __name__ == "__main__":
    n = 1000
    x = wp.array(np.arange(n, dtype=np.float32), dtype=float, device="cpu")
    y = wp.array(np.ones(n, dtype=np.float32), dtype=float, device="cpu")
    vk.check_launch(saxpy, n, [x, y, 2.0])        # the contract holds for this launch
    wp.launch(saxpy, dim=n, inputs=[x, y, 2.0], device="cpu")
    print("y[:4] =", y.numpy()[:4])               # [1. 3. 5. 7.]
