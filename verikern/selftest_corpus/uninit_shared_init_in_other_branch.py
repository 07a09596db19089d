# expect: failed uninit
# The shared buffer is written only when the flag is set, but read after the barrier whatever the flag: with enabled == 0 every read is of uninitialised shared memory. Witness: dim=64, block_dim=64, enabled=0.
# bug: 19:18 uninit
# witness uninit: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64), enabled=0
import verikern as vk


@vk.kernel(block_dim=64)
def staged_read_unconditionally(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), enabled: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if enabled != 0:
        if i < x.shape[0]:
            buf[t] = x[i]
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[(t + 1) % 64]
