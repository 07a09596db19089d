"""A call argument choosing between two arrays, as warpsphcore's operator
kernels pass `adjacencyState.neighborList if useAdjacency else
gridState.sortIndex` (here through a struct too) to their per-particle func
(tests/warp_compat/test_warp_array_choices.py against warp-lang,
tests/frontend/test_fe_array_choices.py by hand with numpy)."""
import warp as wp


@wp.struct
class Lists:
    neighbors: wp.array(dtype=wp.int32)
    order: wp.array(dtype=wp.int32)


@wp.func
def gather_sum(idx: wp.array(dtype=wp.int32), vals: wp.array(dtype=wp.float32), begin: int, n: int):
    s = float(0.0)
    for k in range(n):
        j = idx[begin + k]
        if j >= 0 and j < vals.shape[0]:
            s += vals[j]
    return s


@wp.kernel
def choose(lists: Lists, vals: wp.array(dtype=wp.float32), use_neighbors: wp.bool, width: int,
           out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0] and width > 0 and i < wp.min(lists.neighbors.shape[0], lists.order.shape[0]) // width:
        out[i] = float(0.0)
        out[i] += gather_sum(lists.neighbors if use_neighbors else lists.order, vals, i * width, width)
