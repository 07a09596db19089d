# expect: failed invariant
# Sums the first n elements with a wrong loop-invariant hint k < 10 (nothing bounds n by 10). Witness: n=11, x.shape=(11,), out.shape=(1,), dim=1: at k=10 the hint is false. Bounds hold since n <= len(x).
# bug: 15:13 invariant
# witness invariant: dim=1, block_dim=1, x=zeros(float32, 11), out=zeros(float32, 1), n=11
import verikern as vk


@vk.kernel
def prefix_sum_bad_hint(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(n <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(n):
            vk.invariant(k < 10)
            acc += x[k]
        out[i] = acc
