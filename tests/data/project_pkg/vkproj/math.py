"""Helper funcs of the project (no kernels here)."""
import warp as wp


@wp.func
def safe_div(a: float, b: float):
    if b == 0.0:
        return 0.0
    return a / b
