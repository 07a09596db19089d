# expect: proved
# Each thread writes its column of both rows of a 2x32 shared tile (row 1 first, then row 0), and after the barrier reads row 1 at the next column: the read's constant row index must stay in its address while the column varies per thread (the simulator once dropped it and read row 0).
import verikern as vk


@vk.kernel(block_dim=32)
def tile_row_constant_row_read(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    tile = vk.shared.array(shape=(2, 32), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    tile[1, t] = v + 100.0
    tile[0, t] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = tile[1, (t + 1) % 32]
