# expect: proved
# Splits total with a @vk.func helper that returns 0 instead of dividing by zero.
import verikern as vk


@vk.func
def safe_div(a: vk.int32, b: vk.int32) -> vk.int32:
    r = 0
    if b != 0:
        r = a // b
    return r


@vk.kernel
def split_total_safe(out: vk.array(dtype=vk.int32), total: vk.int32):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = safe_div(total, vk.thread_idx())
