# expect: failed bounds
# The choice of ok_array_choice_call_argument with a guard that bounds the row by the neighbour list only: when the test picks the other list, which is shorter, the func reads past its end. Witness: dim=1, neighbors.shape=(2,), order.shape=(0,): thread 0 reads order[0].
# bug: 12:13 bounds
# witness bounds: dim=1, block_dim=1, neighbors=zeros(int32, 2), order=zeros(int32, 0), vals=zeros(float32, 1), use_neighbors=False, width=1, out=zeros(float32, 1)
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
    if i < out.shape[0] and width > 0 and i < neighbors.shape[0] // width:
        out[i] = gather_sum(neighbors if use_neighbors else order, vals, i * width, width)
