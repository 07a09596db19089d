# expect: failed bounds
# ok_asserted_offsets_length writing offsets[i + 2]: under the asserted relation (one more offset than counts) the last thread writes one past the end. Witness: one count, two offsets.
# bug: 15:9 bounds
# witness bounds: dim=1, block_dim=1, counts=zeros(int32, 1), offsets=zeros(int32, 2)
import verikern as vk
import warp as wp


@vk.requires(lambda counts, offsets: offsets.shape[0] == counts.shape[0] + 1)
@wp.kernel
def shift_counts_two_past(counts: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32)):
    assert offsets.shape[0] == counts.shape[0] + 1, "one more offset than counts"
    i = wp.tid()
    if i < counts.shape[0]:
        offsets[i + 2] = counts[i]
