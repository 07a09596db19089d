# expect: proved
# Reads the label of each pair of threads through an atomic that adds 0 (a coherent read of an array other kernels update) and gathers data[label]: all_in_range(labels, 0, n) is kept for the written array because the atomic_add's new value, old + 0, is proved in range for every old value in range (issue 27), so the gather is in bounds.
import warp as wp


@wp.kernel
def gather_labels(labels: wp.array(dtype=wp.int32), data: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32), n: wp.int32):
    wp.requires(labels.shape[0] == n and data.shape[0] == n and out.shape[0] == n)
    wp.requires(wp.all_in_range(labels, 0, n))
    i = wp.tid()
    if i < n:
        old = wp.atomic_add(labels, i // 2, 0)
        out[i] = data[old]
