# expect: failed bounds
# Queue append whose tail may start anywhere in the queue: a nearly full queue has no room for the appended vertices, and the atomic tail hands out slots past the end. Witness: the tail starts at 3 in a queue of 4, four vertices changed.
# bug: 18:9 bounds
# witness bounds: dim=4, block_dim=4, changed=array(int32, [1, 1, 1, 1]), queue=zeros(int32, 4), tail=array(int32, [3])
import verikern as vk


@vk.kernel
def enqueue_changed(changed: vk.array(dtype=vk.int32), queue: vk.array(dtype=vk.int32),
                    tail: vk.array(dtype=vk.int32)):
    vk.requires(tail.shape[0] == 1)
    vk.requires(changed.shape[0] == vk.launch_dim())
    vk.requires(queue.shape[0] >= vk.launch_dim())
    vk.requires(vk.all_in_range(tail, 0, queue.shape[0]))
    v = vk.tid()
    if changed[v] != 0:
        slot = vk.atomic_add(tail, 0, 1)
        queue[slot] = v
