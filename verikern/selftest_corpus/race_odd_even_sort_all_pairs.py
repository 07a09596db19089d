# expect: failed race
# Odd-even transposition sort that forgets the parity test, so neighbouring pairs overlap. Witness: dim=64 (block_dim 64), phase 0: thread 0 writes buf[1] while thread 1 reads buf[1].
# bug: 22:17 race 26:17
# bug: 23:17 race 25:17
# bug: 25:17 race 26:17
# witness race: dim=64, block_dim=64, keys=array(int32, [2, 1, 0])
import verikern as vk


@vk.kernel(block_dim=64)
def odd_even_sort_block_racy(keys: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 2147483647
    if i < keys.shape[0]:
        v = keys[i]
    buf[t] = v
    vk.sync_threads()
    for phase in range(64):
        if t + 1 < 64:
            a = buf[t]
            b = buf[t + 1]
            if a > b:
                buf[t] = b
                buf[t + 1] = a
        vk.sync_threads()
    if i < keys.shape[0]:
        keys[i] = buf[t]
