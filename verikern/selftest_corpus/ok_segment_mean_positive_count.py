# expect: proved
# Integer mean of each segment: the segment's total divided by its element count, guarded count > 0 (an empty segment gets 0). A positive count is neither 0 nor -1, so neither a division by zero nor INT_MIN // -1 (which traps on int32) can happen, whatever the arrays hold.
import verikern as vk


@vk.kernel
def segment_mean(totals: vk.array(dtype=vk.int32), counts: vk.array(dtype=vk.int32), means: vk.array(dtype=vk.int32)):
    vk.requires(totals.shape[0] == means.shape[0])
    vk.requires(counts.shape[0] == means.shape[0])
    s = vk.tid()
    if s < means.shape[0]:
        c = counts[s]
        if c > 0:
            means[s] = totals[s] // c
        else:
            means[s] = 0
