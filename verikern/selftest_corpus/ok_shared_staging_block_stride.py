# expect: proved
# Stages a 256-element table in shared memory with a block-wide stride (thread t copies elements t, t + 64, t + 128, t + 192), then thread t reads element 255 - 3t of it. The staging loop is not one affine write: each element is written by thread j % 64 in the iteration whose counter is j, which the uninit decider names as the witness.
import verikern as vk


@vk.kernel(block_dim=64)
def stage_table_strided(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(table.shape[0] == 256)
    vk.requires(out.shape[0] == vk.launch_dim())
    s = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    for j in range(t, 256, vk.block_dim()):
        s[j] = table[j]
    vk.sync_threads()
    out[vk.tid()] = s[255 - t * 3]
