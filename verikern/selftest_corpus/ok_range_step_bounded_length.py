# expect: proved
# Sums x[k] for k in range(start, stop, 16) that fall inside x; requiring 0 <= start and stop <= 2**30 keeps the counter non-negative and its last step from wrapping.
import verikern as vk


@vk.kernel
def strided_window_sum_bounded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), start: vk.int32, stop: vk.int32):
    vk.requires(start >= 0 and stop <= 1073741824)
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(start, stop, 16):
            if k < x.shape[0]:
                acc += x[k]
        out[i] = acc
