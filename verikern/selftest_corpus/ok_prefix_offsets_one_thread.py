# expect: proved
# A one-thread prefix sum that turns per-segment counts into CSR offsets, as project code writes it (launched with dim=1, the work under `if t == 0`): offsets[i + 1] = offsets[i] + counts[i] needs one more offset than counts, the contract verikern suggests for it. Its near miss with `<=` is bounds_prefix_offsets_one_short.
import verikern as vk
import warp as wp


@vk.requires(lambda counts, offsets: counts.shape[0] < offsets.shape[0])
@wp.kernel
def prefix_offsets(counts: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if t == 0:
        offsets[0] = 0
        for i in range(counts.shape[0]):
            offsets[i + 1] = offsets[i] + counts[i]
