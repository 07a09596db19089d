# expect: failed bounds
# The packed records of ok_csr_records_after_headers read as if each had two headers (src = start + i + 2) under the contract for one: the last record's ids run past the packed array. Witness: one record [1, 7], offsets [0, 1]: thread 0 reads packed[2] of 2.
# bug: 20:35 bounds
# witness bounds: dim=1, block_dim=1, packed=array(int32, [1, 7]), offsets=array(int32, [0, 1]), connectivity=zeros(int32, 1)
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
    src = start + i + 2
    for k in range(point_count):
        connectivity[start + k] = packed[src + k]
