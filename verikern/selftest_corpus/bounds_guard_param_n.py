# expect: failed bounds
# Scales the first n elements, guarded by i < n where n is a parameter never tied to the shapes. Witness: n=2, x.shape=out.shape=(1,), dim=2: thread 1 reads x[1].
# bug: 14:9 bounds
# bug: 14:22 bounds
# witness bounds: dim=2, block_dim=2, x=zeros(float32, 1), out=zeros(float32, 1), n=2, a=1.0
import verikern as vk


@vk.kernel
def scale_first_n(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32, a: vk.float32):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < n:
        out[i] = a * x[i]
