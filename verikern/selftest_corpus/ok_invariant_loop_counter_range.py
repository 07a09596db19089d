# expect: proved
# Sums the first n elements with a correct loop-invariant hint 0 <= k < n.
import verikern as vk


@vk.kernel
def prefix_sum_good_hint(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(n <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(n):
            vk.invariant(k >= 0 and k < n)
            acc += x[k]
        out[i] = acc
