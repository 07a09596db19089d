# expect: proved
# A 2x32 column-major shared tile of vec3: each thread writes its column of row 1 and then of row 0, and after the barrier adds row 1 at the next column to row 0 at its own: constant row, per-thread column and constant component indices in one address, on both sides of the barrier.
import verikern as vk


@vk.kernel(block_dim=32)
def vec3_tile_rows_column_major(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.vec3)):
    vk.requires(out.shape[0] == x.shape[0])
    s = vk.shared.array(shape=(2, 32), dtype=vk.vec3, layout="column_major")
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[1, t] = vk.vec3(v, 1.0, 2.0)
    s[0, t] = vk.vec3(-v, -1.0, -2.0)
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = s[1, (t + 1) % 32] + s[0, t]
