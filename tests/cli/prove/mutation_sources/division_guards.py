"""Correct kernels whose integer divisions are guarded (mutation source)."""
import verikern as vk


@vk.kernel
def bucket(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), width: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0] and width > 0:
        out[i] = x[i] // width


@vk.kernel
def wrap_copy(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if x.shape[0] == 0:
        return
    if i < out.shape[0]:
        out[i] = x[i % x.shape[0]]
