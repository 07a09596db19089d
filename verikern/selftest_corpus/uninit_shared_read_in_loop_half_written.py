# expect: failed uninit
# The sliding-window sum of a 64-slot shared buffer, but only the first 16 threads fill the upper half before the loop (slots 32..47), so a window that reaches slot 48 reads an element no thread wrote. Witness: n=32: thread 31 reads s[48] in iteration 17.
# bug: 24:16 uninit
# witness uninit: dim=32, block_dim=32, x=zeros(float32, 32), out=zeros(float32, 32), n=32
import verikern as vk


@vk.kernel(block_dim=32)
def window_sum_half_filled(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: int):
    vk.requires(out.shape[0] == x.shape[0])
    vk.requires(n >= 0 and n <= 32)
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = v
    if t < 16:
        s[t + 32] = v * 0.5
    vk.sync_threads()
    acc = 0.0
    for k in range(n):
        acc += s[t + k]
    if i < out.shape[0]:
        out[i] = acc
