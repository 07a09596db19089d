# expect: proved
# A kernel that checks its offsets' length with `assert`, as warp-simdata's trailing-sum and MIXED-section kernels do (Warp compiles kernel asserts only in debug builds: the host code guarantees the relation). The contract verikern suggests for the failing assert is the asserted relation itself, under which the assert and offsets[i + 1] are proved. Its near miss writes offsets[i + 2]: bounds_asserted_offsets_two_past.
import verikern as vk
import warp as wp


@vk.requires(lambda counts, offsets: offsets.shape[0] == counts.shape[0] + 1)
@wp.kernel
def shift_counts(counts: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32)):
    assert offsets.shape[0] == counts.shape[0] + 1, "one more offset than counts"
    i = wp.tid()
    if i < counts.shape[0]:
        offsets[i + 1] = counts[i]
