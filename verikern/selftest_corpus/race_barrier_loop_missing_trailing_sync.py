# expect: failed race
# Tile-by-tile sum without the barrier after reading the staged tile: the next step's store buf[t] races with other threads still reading the previous tile. Witness: dim=64 (block_dim 64), x.shape=(64,) (two steps): thread 0 stores buf[0] in step 1 while thread 1 reads buf[0] in step 0.
# bug: 20:9 race 23:20
# witness race: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def tile_sums_racy(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == vk.launch_dim())
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    acc = 0.0
    for step in range(x.shape[0] // 64 + 1):
        j = step * 64 + t
        v = 0.0
        if j < x.shape[0]:
            v = x[j]
        buf[t] = v
        vk.sync_threads()
        for k in range(64):
            acc += buf[k]
    out[i] = acc
