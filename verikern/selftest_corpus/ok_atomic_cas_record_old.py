# expect: proved
# Every thread tries to claim lock[0] with atomic_cas(0 -> i + 1) and records the old value it saw in prev[i].
import verikern as vk


@vk.kernel
def claim_lock(lock: vk.array(dtype=vk.int32), prev: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < prev.shape[0] and lock.shape[0] > 0:
        prev[i] = vk.atomic_cas(lock, 0, 0, i + 1)
