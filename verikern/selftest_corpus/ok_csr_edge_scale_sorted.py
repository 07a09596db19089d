# expect: proved
# CSR traversal: thread v scales the edges of vertex v, out[e] for e in [offsets[v], offsets[v+1]). all_sorted(offsets) makes the vertices' edge ranges disjoint (no race); all_in_range(offsets, 0, out.shape[0] + 1) keeps e in bounds.
import verikern as vk


@vk.kernel
def scale_edges(offsets: vk.array(dtype=vk.int32), w: vk.array(dtype=vk.float32),
                x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(offsets.shape[0] == x.shape[0] + 1)
    vk.requires(w.shape[0] == out.shape[0])
    vk.requires(vk.all_in_range(offsets, 0, out.shape[0] + 1))
    vk.requires(vk.all_sorted(offsets))
    v = vk.tid()
    if v < x.shape[0]:
        for e in range(offsets[v], offsets[v + 1]):
            out[e] = w[e] * x[v]
