# expect: failed race
# A barrier loop of 600 steps in which every thread writes its own slot of buf, except in step 511, where all of them write buf[0]. Witness: dim=32 (block_dim 32): in step 511 threads 0 and 1 both write buf[0] between barriers 511 and 512 (replay reaches it: only the two accesses are traced once the first 500 steps show nothing).
# bug: 16:9 race 16:9
# witness race: dim=32, block_dim=32, out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def race_at_step_511(out: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(32,), dtype=vk.float32)
    t = vk.thread_idx()
    for k in range(600):
        j = t
        if k == 511:
            j = 0
        buf[j] = float(k)
        vk.sync_threads()
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = 1.0
