# expect: failed uninit
# Each thread fills its column of rows 0..2 of a 4x32 shared tile in a loop, then after the barrier reads row 3, which the loop never reaches. Witness: dim=32, block_dim=32: thread 0 reads tile[3, 5] uninitialised (the simulator once dropped the loop's row and the constant row 3 from the addresses, so the read hit row 0 and stayed unconfirmed).
# bug: 21:18 uninit
# witness uninit: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def tile_loop_rows_constant_read(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    tile = vk.shared.array(shape=(4, 32), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    for r in range(3):
        tile[r, t] = v * float(r + 1)
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = tile[3, (t + 5) % 32]
