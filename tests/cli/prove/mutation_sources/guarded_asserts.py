"""Correct kernels whose asserts hold only under their guards (mutation source)."""
import verikern as vk


@vk.kernel
def checked_gather(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32),
                   out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, 1024))
    vk.requires(x.shape[0] >= 1024)
    vk.requires(out.shape[0] == idx.shape[0])
    i = vk.tid()
    if i >= idx.shape[0]:
        return
    assert i < out.shape[0], "the guard keeps i inside out"
    j = idx[i]
    assert j >= 0 and j < 1024
    out[i] = x[j]


@vk.kernel
def scaled_copy(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if n > 0:
        assert n >= 1
        if i < x.shape[0]:
            out[i] = x[i] * 2.0
