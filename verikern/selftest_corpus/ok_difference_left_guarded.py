# expect: proved
# Backward difference out[i] = x[i] - x[i-1] for 1 <= i < n; the guard excludes thread 0, so x[i-1] is never negative.
import verikern as vk


@vk.kernel
def backward_difference_guarded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i >= 1 and i < x.shape[0]:
        out[i] = x[i] - x[i - 1]
