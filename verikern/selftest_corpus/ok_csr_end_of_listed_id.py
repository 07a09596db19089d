# expect: proved
# The node count of each listed face from CSR offsets (warp-simdata's _count_oriented_face_nodes: face_idx = face_locations[slot], source_offsets[face_idx + 1] - source_offsets[face_idx]). Listed ids below source_offsets.shape[0] - 1 leave every face its end offset.
import verikern as vk


@vk.kernel
def listed_counts(face_locations: vk.array(dtype=vk.int32), source_offsets: vk.array(dtype=vk.int32),
                  counts: vk.array(dtype=vk.int32)):
    vk.requires(vk.launch_dim() <= face_locations.shape[0] and vk.launch_dim() <= counts.shape[0])
    vk.requires(vk.all_in_range(face_locations, 0, source_offsets.shape[0] - 1))
    slot = vk.tid()
    face_idx = face_locations[slot]
    counts[slot] = source_offsets[face_idx + 1] - source_offsets[face_idx]
