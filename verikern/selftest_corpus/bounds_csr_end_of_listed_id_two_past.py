# expect: failed bounds
# ok_csr_end_of_listed_id reading two offsets past the listed face (source_offsets[face_idx + 2]) under the contract for one: the last face's read runs past the offsets. Witness: one slot listing face 0 of 1 (offsets [0, 3]): reads source_offsets[2] of 2.
# bug: 15:20 bounds
# witness bounds: dim=1, block_dim=1, face_locations=array(int32, [0]), source_offsets=array(int32, [0, 3]), counts=zeros(int32, 1)
import verikern as vk


@vk.kernel
def listed_counts(face_locations: vk.array(dtype=vk.int32), source_offsets: vk.array(dtype=vk.int32),
                  counts: vk.array(dtype=vk.int32)):
    vk.requires(vk.launch_dim() <= face_locations.shape[0] and vk.launch_dim() <= counts.shape[0])
    vk.requires(vk.all_in_range(face_locations, 0, source_offsets.shape[0] - 1))
    slot = vk.tid()
    face_idx = face_locations[slot]
    counts[slot] = source_offsets[face_idx + 2] - source_offsets[face_idx]
