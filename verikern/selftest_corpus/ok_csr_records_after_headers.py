# expect: proved
# CSR records copied out of a legacy packed array (warp-simdata's _scatter_connectivity_kernel: record i is [count, id0, id1, ...] and starts at offsets[i] + i, after offsets[i] ids and i count headers). The loop runs k below the segment length offsets[i + 1] - offsets[i]; offsets in [0, connectivity.shape[0]] bound the copy, offsets in [0, packed.shape[0] - launch_dim] leave room for the launch's headers, and sorted offsets keep the segments disjoint.
import verikern as vk


@vk.kernel
def scatter_records(packed: vk.array(dtype=vk.int32), offsets: vk.array(dtype=vk.int32),
                    connectivity: vk.array(dtype=vk.int32)):
    vk.requires(vk.launch_dim() < offsets.shape[0])
    vk.requires(vk.all_in_range(offsets, 0, packed.shape[0] - vk.launch_dim() + 1))
    vk.requires(vk.all_in_range(offsets, 0, connectivity.shape[0] + 1))
    vk.requires(vk.all_sorted(offsets))
    i = vk.tid()
    start = offsets[i]
    point_count = offsets[i + 1] - start
    src = start + i + 1
    for k in range(point_count):
        connectivity[start + k] = packed[src + k]
