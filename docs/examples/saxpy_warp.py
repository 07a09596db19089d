import numpy as np  # noqa: F401 (as in the README's listing, which this file reproduces line for line)
import warp as wp


@wp.kernel
def saxpy(x: wp.array[float], y: wp.array[float], a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
