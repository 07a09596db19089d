import verikern as vk

BLOCK = 128


@vk.kernel(block_dim=BLOCK)
def block_sum(a: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(BLOCK,), dtype=vk.float32)
    t = vk.thread_idx()
    s[t] = a[vk.tid()]
    vk.sync_threads()
    stride = BLOCK // 2
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        vk.sync_threads()
        stride //= 2
    if t == 0:
        out[vk.block_idx()] = s[0]
