# expect: failed race,uninit
# Reverses each block of 128 elements through shared memory but without the barrier. Witness: dim=128, block_dim=128, x.shape=(128,): thread 127 writes buf[127] while thread 0 reads buf[127]. The same missing barrier lets buf[127] be read before its write happens (uninit).
# bug: 18:9 race 20:18
# bug: 20:18 uninit
# witness race: dim=128, block_dim=128, x=zeros(float32, 128), out=zeros(float32, 128)
# witness uninit: dim=128, block_dim=128, x=zeros(float32, 128), out=zeros(float32, 128)
import verikern as vk


@vk.kernel
def reverse_block_no_barrier(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() == 128)
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if i < x.shape[0]:
        buf[t] = x[i]
    if i < out.shape[0]:
        out[i] = buf[127 - t]
