# expect: failed uninit
# The staging loop's stride is twice the block size, so only elements 0..63 and 128..191 of the shared table are written; thread 10 reads s[70], which no thread wrote. Witness: dim=64, block_dim=64.
# bug: 19:18 uninit
# witness uninit: dim=64, block_dim=64, table=zeros(float32, 256), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def stage_table_stride_skips(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(table.shape[0] == 256)
    vk.requires(out.shape[0] == vk.launch_dim())
    s = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    for j in range(t, 256, 2 * vk.block_dim()):
        s[j] = table[j]
    vk.sync_threads()
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = s[(t * 7) % 256]
