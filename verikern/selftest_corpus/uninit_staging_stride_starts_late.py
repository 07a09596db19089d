# expect: failed uninit
# The staging loop starts at thread_idx + 1 (an off-by-one copied from a 1-based halo), so element 0 of the shared table is never written; thread 0 reads it. Witness: dim=32, block_dim=32.
# bug: 19:18 uninit
# witness uninit: dim=32, block_dim=32, table=zeros(float32, 256), out=zeros(float32, 32)
import verikern as vk


@vk.kernel(block_dim=32)
def stage_table_starts_late(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(table.shape[0] == 256)
    vk.requires(out.shape[0] == vk.launch_dim())
    s = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    for j in range(t + 1, 256, vk.block_dim()):
        s[j] = table[j]
    vk.sync_threads()
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = s[i % 256]
