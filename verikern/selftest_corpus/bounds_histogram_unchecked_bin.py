# expect: failed bounds
# Histogram of floats in [0, 1) into 16 bins computed as int(x * 16) with no clamp; values outside [0, 1) are not excluded. Witness: dim=1, x=[-1.0], hist.shape=(16,): thread 0 adds into hist[-16].
# bug: 14:9 bounds
# witness bounds: dim=1, block_dim=1, x=array(float32, [-1.0]), hist=zeros(int32, 16)
import verikern as vk


@vk.kernel
def histogram_unchecked(x: vk.array(dtype=vk.float32), hist: vk.array(dtype=vk.int32)):
    vk.requires(hist.shape[0] == 16)
    i = vk.tid()
    if i < x.shape[0]:
        b = int(x[i] * 16.0)
        vk.atomic_add(hist, b, 1)
