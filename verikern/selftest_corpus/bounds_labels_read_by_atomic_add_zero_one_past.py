# expect: failed bounds
# Reads the label of each pair of threads through an atomic that adds 0 and gathers data[label + 1]: the contract all_in_range(labels, 0, n) is kept (the add of 0 keeps it), and the label n - 1 reads one past the end. Witness: n=2, labels=[1, 0]: threads 0 and 1 read labels[0] = 1 and data[2].
# bug: 15:18 bounds
# witness bounds: dim=2, block_dim=2, labels=array(int32, [1, 0]), data=zeros(float32, 2), out=zeros(float32, 2), n=2
import warp as wp


@wp.kernel
def gather_labels(labels: wp.array(dtype=wp.int32), data: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32), n: wp.int32):
    wp.requires(labels.shape[0] == n and data.shape[0] == n and out.shape[0] == n)
    wp.requires(wp.all_in_range(labels, 0, n))
    i = wp.tid()
    if i < n:
        old = wp.atomic_add(labels, i // 2, 0)
        out[i] = data[old + 1]
