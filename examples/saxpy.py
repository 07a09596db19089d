"""saxpy: y <- a * x + y, one thread per element.

The requires ties the two lengths together and the guard i < len(x) makes a
partial last block safe, so `verikern prove examples/saxpy.py` proves it for
every launch.
"""
import numpy as np

import verikern as vk


@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    return {
        "x": rng.standard_normal(n).astype(np.float32),
        "y": rng.standard_normal(n).astype(np.float32),
        "a": np.float32(rng.uniform(-2.0, 2.0)),
    }


def reference(inputs):
    x = inputs["x"].astype(np.float64)
    y = inputs["y"].astype(np.float64)
    return {"y": float(inputs["a"]) * x + y}


def run(inputs, device="cpu", block_dim=256):
    x = inputs["x"].copy()
    y = inputs["y"].copy()
    vk.launch(saxpy, len(x), inputs=[x, y, inputs["a"]], block_dim=block_dim, device=device)
    return {"y": y}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data), reference(data)
    print("saxpy max abs error:", float(np.max(np.abs(got["y"] - want["y"]))))
