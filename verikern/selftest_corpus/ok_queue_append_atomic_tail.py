# expect: proved
# Queue append: each thread whose vertex changed takes a slot past the queue's current tail with vk.atomic_add; the tail starts where the queue still has room for every thread of the launch, so every slot is in bounds and no two threads write one slot.
import verikern as vk


@vk.kernel
def enqueue_changed(changed: vk.array(dtype=vk.int32), queue: vk.array(dtype=vk.int32),
                    tail: vk.array(dtype=vk.int32)):
    vk.requires(tail.shape[0] == 1)
    vk.requires(changed.shape[0] == vk.launch_dim())
    vk.requires(queue.shape[0] >= vk.launch_dim())
    vk.requires(vk.all_in_range(tail, 0, queue.shape[0] - vk.launch_dim() + 1))
    v = vk.tid()
    if changed[v] != 0:
        slot = vk.atomic_add(tail, 0, 1)
        queue[slot] = v
