# expect: failed div-zero
# The integer segment mean guarded only count != 0: a count of -1 with a total of INT_MIN computes INT_MIN // -1, which overflows int32 (x86's idiv traps: Warp's CPU run dies of SIGFPE). Witness: dim=1, totals=[INT_MIN], counts=[-1]: thread 0 computes INT_MIN // -1. Guard count > 0, as ok_segment_mean_positive_count does.
# bug: 16:24 div-zero
# witness div-zero: dim=1, block_dim=1, totals=array(int32, [-2147483648]), counts=array(int32, [-1]), means=zeros(int32, 1)
import verikern as vk


@vk.kernel
def segment_mean(totals: vk.array(dtype=vk.int32), counts: vk.array(dtype=vk.int32), means: vk.array(dtype=vk.int32)):
    vk.requires(totals.shape[0] == means.shape[0])
    vk.requires(counts.shape[0] == means.shape[0])
    s = vk.tid()
    if s < means.shape[0]:
        c = counts[s]
        if c != 0:
            means[s] = totals[s] // c
        else:
            means[s] = 0
