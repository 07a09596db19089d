# expect: failed uninit
# Each of the 32 threads of a block fills one column of a 4x32 shared tile, but the loop covers only rows 0..2, so row 3 is never written and thread 3 reads tile[3, 0] uninitialised. Witness: dim=32, block_dim=32.
# bug: 22:16 uninit
# witness uninit: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def tile_column_loop_short(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
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
    acc = 0.0
    for c in range(32):
        acc += tile[t % 4, c]
    if i < out.shape[0]:
        out[i] = acc
