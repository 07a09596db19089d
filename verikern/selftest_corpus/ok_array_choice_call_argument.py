# expect: proved
# A per-particle func gets its index list as `neighbors if use_neighbors else order` (warpsphcore's neighbour-list-or-grid choice); the guard bounds the row by both lists, so whichever the test picks, every read is in bounds.
import verikern as vk


@vk.func
def gather_sum(idx: vk.array(dtype=vk.int32), vals: vk.array(dtype=vk.float32), begin: int, n: int):
    s = float(0.0)
    for k in range(n):
        j = idx[begin + k]
        if j >= 0 and j < vals.shape[0]:
            s += vals[j]
    return s


@vk.kernel
def choose(neighbors: vk.array(dtype=vk.int32), order: vk.array(dtype=vk.int32), vals: vk.array(dtype=vk.float32),
           use_neighbors: vk.bool, width: int, out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < out.shape[0] and width > 0 and i < vk.min(neighbors.shape[0], order.shape[0]) // width:
        out[i] = gather_sum(neighbors if use_neighbors else order, vals, i * width, width)
