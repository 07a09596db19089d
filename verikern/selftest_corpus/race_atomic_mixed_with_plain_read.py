# expect: failed race
# Atomically accumulates x into total[0] and also records a running snapshot with a plain read of total[0]. Witness: dim=2, shapes (2,), total.shape=(1,): thread 0's plain read of total[0] races with thread 1's atomic add.
# bug: 13:9 race 14:19
# witness race: dim=2, block_dim=2, x=zeros(float32, 2), total=zeros(float32, 1), snap=zeros(float32, 2)
import verikern as vk


@vk.kernel
def sum_with_snapshot(x: vk.array(dtype=vk.float32), total: vk.array(dtype=vk.float32), snap: vk.array(dtype=vk.float32)):
    vk.requires(snap.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0] and total.shape[0] > 0:
        vk.atomic_add(total, 0, x[i])
        snap[i] = total[0]
