# expect: proved
# The twin of assert_fails_gather_at_shared_index.py that compares two reads of the never-written table at the same index (read back from shared memory and masked into the table): reads of an array nobody writes agree at equal indices, whatever the index.
import verikern as vk


@vk.kernel(block_dim=64)
def gather_twice_at_shared_index(table: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(table.shape[0] >= 2)
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    buf[t] = 1
    vk.sync_threads()
    k = buf[63 - t] & 1
    a = table[k]
    b = table[k]
    assert a == b
    if i < out.shape[0]:
        out[i] = a
