# expect: failed uninit
# Each thread writes only its column of row 0 of a 2x32 shared tile, but after the barrier reads row 1 at the next column, which no thread wrote. Witness: dim=32, block_dim=32: thread 0 reads tile[1, 1] uninitialised (the simulator once dropped the constant row from the address, read row 0 and left this read unconfirmed).
# bug: 20:18 uninit
# witness uninit: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def tile_row_never_written(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    tile = vk.shared.array(shape=(2, 32), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    tile[0, t] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = tile[1, (t + 1) % 32]
