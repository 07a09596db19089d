# expect: failed div-zero
# Splits total evenly with a @vk.func helper that divides by the thread index. Witness: dim=1, out.shape=(1,), total=7: thread 0 calls share(7, 0) and computes 7 // 0.
# bug: 10:12 div-zero
# witness div-zero: dim=1, block_dim=1, out=zeros(int32, 1), total=7
import verikern as vk


@vk.func
def share(total: vk.int32, parts: vk.int32) -> vk.int32:
    return total // parts


@vk.kernel
def split_total(out: vk.array(dtype=vk.int32), total: vk.int32):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = share(total, vk.thread_idx())
