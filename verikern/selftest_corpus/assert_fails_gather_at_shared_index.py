# expect: failed assert
# A never-written table read at an index that came back from shared memory (1, written by every thread before the barrier) (masked into the table) is asserted equal to table[0]. The index is abstracted, so the table contents of a model are not exact by themselves; the replay confirms the bug. Witness: dim=64 (block_dim 64), table=[0, 1].
# bug: 19:5 assert
# witness assert: dim=64, block_dim=64, table=array(int32, [0, 1]), out=zeros(int32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def gather_at_shared_index(table: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(table.shape[0] >= 2)
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    buf[t] = 1
    vk.sync_threads()
    k = buf[63 - t] & 1
    a = table[k]
    b = table[0]
    assert a == b
    if i < out.shape[0]:
        out[i] = a
