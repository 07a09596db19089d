"""A vertical 3-point stencil on a row-major image of width w, flattened:
out[i] = x[i - w] + x[i] + x[i + w] for every pixel with a row above and
below. Proved for every launch (`verikern prove`): the guard keeps i - w and
i + w inside x, and is written so that nothing wraps in int32 (i < n - w,
not i + w < n). benchmarks/native_vs_warp.py times it with and without the
proved index checks: with them the thread loop has an early exit, which
keeps LLVM from vectorising it."""
import verikern as vk


@vk.kernel
def column_stencil(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), w: vk.int32):
    vk.requires(x.shape[0] == out.shape[0] and w >= 1)
    i = vk.tid()
    if i < out.shape[0]:
        if i >= w and i < x.shape[0] - w:
            out[i] = x[i - w] + x[i] + x[i + w]
