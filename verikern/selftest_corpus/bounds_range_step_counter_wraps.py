# expect: failed bounds
# Sums x[k] for k in range(start, stop, 16) that fall inside x; as in Warp's generated C loop the counter steps with int32 arithmetic, so the step past the end can wrap. Witness: dim=1, start=2147483632, stop=2147483647, x.shape=(1,), out.shape=(1,): k=2147483632 is skipped, then k wraps to -2147483648, is still below stop and below len(x), and thread 0 reads x[-2147483648].
# bug: 16:24 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1), start=2147483632, stop=2147483647
import verikern as vk


@vk.kernel
def strided_window_sum(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), start: vk.int32, stop: vk.int32):
    vk.requires(start >= 0)
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(start, stop, 16):
            if k < x.shape[0]:
                acc += x[k]
        out[i] = acc
