# expect: failed race,uninit
# Shifts a block's values left by one in place through a 33-slot shared buffer: thread t reads slot t + 1 and writes slot t in the same barrier interval (a race with thread t + 1's read), and thread 31 reads slot 32, which no thread writes (an uninitialised read that comes first, at the racing read). Witness: dim=32, block_dim=32: replay records the uninitialised read of buf[32] and runs on, so the race between threads 0 and 1 on buf[1] is confirmed too.
# bug: 21:9 uninit
# bug: 21:9 race 22:5
# witness uninit: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32)
# witness race: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def shift_left_in_place(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(33,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    w = buf[t + 1]
    buf[t] = w * 2.0
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[t]
