# expect: failed bounds
# Zeroes x with the guard i <= x.shape[0] (off by one). Witness: dim=1, x.shape=(0,): thread 0 writes x[0].
# bug: 12:9 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 0)
import verikern as vk


@vk.kernel
def zero_off_by_one(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i <= x.shape[0]:
        x[i] = 0.0
