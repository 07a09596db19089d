# expect: failed div-zero
# Pairs each thread with a partner t % (block_dim - 1), which divides by zero when block_dim == 1. Witness: dim=1, block_dim=1, out.shape=(1,): thread 0 computes 0 % 0.
# bug: 12:18 div-zero
# witness div-zero: dim=1, block_dim=1, out=zeros(int32, 1)
import verikern as vk


@vk.kernel
def partner_index(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = vk.thread_idx() % (vk.block_dim() - 1)
