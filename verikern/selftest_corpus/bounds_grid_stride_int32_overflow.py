# expect: failed bounds
# Classic int32 grid-stride sum (reads only, one store per thread) with no size limits: k += stride wraps negative and still passes k < n. Witness: dim=2**31 - 1, block_dim=1 (stride 2**31 - 1), x.shape=(2,), out.shape=(2,): thread 1 reads x[1], then k = 1 + 2**31 - 1 wraps to -2147483648, still below len(x), and it reads x[-2147483648].
# bug: 15:16 bounds
# witness: none (the bug needs a launch of 2**31 - 1 threads)
import verikern as vk


@vk.kernel
def sum_grid_stride(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    stride = vk.grid_dim() * vk.block_dim()
    acc = 0.0
    k = i
    while k < x.shape[0]:
        acc += x[k]
        k += stride
    if i < out.shape[0]:
        out[i] = acc
