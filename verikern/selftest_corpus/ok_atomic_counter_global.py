# expect: proved
# Counts the positive elements of x with vk.atomic_add into count[0]; atomics never race with each other.
import verikern as vk


@vk.kernel
def count_positive(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < x.shape[0] and count.shape[0] > 0:
        if x[i] > 0.0:
            vk.atomic_add(count, 0, 1)
