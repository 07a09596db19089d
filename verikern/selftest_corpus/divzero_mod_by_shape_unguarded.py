# expect: failed div-zero
# Tiles x cyclically over out: out[i] = x[i % len(x)], guarded by out's length only, so an empty x divides by zero. Witness: dim=1, x.shape=(0,), out.shape=(1,): thread 0 computes 0 % 0. Whenever the modulo is defined the read is in bounds.
# bug: 12:20 div-zero
# witness div-zero: dim=1, block_dim=1, x=zeros(float32, 0), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def tile_cyclic(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = x[i % x.shape[0]]
