# expect: failed bounds,div-zero
# Reads x[i % m] with only m <= len(x) required: m = 0 divides by zero, and a negative m lets i % m (sign of the dividend) exceed len(x). Witnesses: m=0, dim=1, out.shape=(1,): div-zero; m=-5, x.shape=(1,), out.shape=(5,), dim=4: thread 3 reads x[3 % -5] = x[3].
# bug: 15:18 bounds
# bug: 15:20 div-zero
# witness bounds: dim=4, block_dim=4, x=zeros(float32, 1), out=zeros(float32, 5), m=-5
# witness div-zero: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1), m=0
import verikern as vk


@vk.kernel
def cyclic_read_unchecked(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), m: vk.int32):
    vk.requires(m <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = x[i % m]
