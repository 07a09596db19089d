# expect: failed bounds
# Fills out with 1.0 but stores out[tid] with no guard. Witness: dim=2, block_dim=2, out.shape=(1,): thread 1 writes out[1].
# bug: 11:5 bounds
# witness bounds: dim=2, block_dim=2, out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def fill_unguarded(out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    out[i] = 1.0
