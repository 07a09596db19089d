# expect: failed race
# The CSR edge kernel without all_sorted(offsets): unsorted offsets give two vertices overlapping edge ranges, and both write the shared edges. Witness: offsets [0, 2, 1, 2]: vertices 0 and 2 both write out[1].
# bug: 17:13 race 17:13
# witness race: dim=3, block_dim=3, offsets=array(int32, [0, 2, 1, 2]), w=zeros(float32, 2), x=zeros(float32, 3), out=zeros(float32, 2)
import verikern as vk


@vk.kernel
def scale_edges(offsets: vk.array(dtype=vk.int32), w: vk.array(dtype=vk.float32),
                x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(offsets.shape[0] == x.shape[0] + 1)
    vk.requires(w.shape[0] == out.shape[0])
    vk.requires(vk.all_in_range(offsets, 0, out.shape[0] + 1))
    v = vk.tid()
    if v < x.shape[0]:
        for e in range(offsets[v], offsets[v + 1]):
            out[e] = w[e] * x[v]
