# expect: failed invariant
# int64 grid-stride sum with the wrong hint k % stride == 0 (it is k % stride == i). Witness: dim=2, block_dim=2, x.shape=(2,), out.shape=(2,): thread 1 enters the loop with k=1, stride=2. The loop only reads, so bounds need just k >= 0.
# bug: 15:9 invariant
# witness invariant: dim=2, block_dim=2, x=zeros(float32, 2), out=zeros(float32, 2)
import verikern as vk


@vk.kernel
def sum_grid_stride64_bad_hint(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    stride = vk.int64(vk.grid_dim()) * vk.int64(vk.block_dim())
    acc = 0.0
    k = vk.int64(i)
    while k < vk.int64(x.shape[0]):
        vk.invariant(k % stride == 0)
        acc += x[k]
        k += stride
    if i < out.shape[0]:
        out[i] = acc
