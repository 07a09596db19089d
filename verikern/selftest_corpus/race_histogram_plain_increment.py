# expect: failed race
# Global histogram with a plain hist[b] = hist[b] + 1 (bins range-checked by contract). Witness: dim=2, bins=[0, 0], hist.shape=(1,): threads 0 and 1 both read-modify-write hist[0].
# bug: 15:9 race 15:9
# bug: 15:19 race 15:9
# witness race: dim=2, block_dim=2, bins=zeros(int32, 2), hist=zeros(int32, 1)
import verikern as vk


@vk.kernel
def histogram_plain(bins: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(bins, 0, hist.shape[0]))
    i = vk.tid()
    if i < bins.shape[0]:
        b = bins[i]
        hist[b] = hist[b] + 1
