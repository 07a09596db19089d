# expect: proved
# Each of the 32 threads of a block fills one column of a 4x32 shared tile in a loop over the 4 rows, then after a barrier thread t sums row t % 4 across the 32 columns: every element read was written by the column loop.
import verikern as vk


@vk.kernel(block_dim=32)
def tile_column_loop(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    tile = vk.shared.array(shape=(4, 32), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    for r in range(4):
        tile[r, t] = v * float(r + 1)
    vk.sync_threads()
    acc = 0.0
    for c in range(32):
        acc += tile[t % 4, c]
    if i < out.shape[0]:
        out[i] = acc
