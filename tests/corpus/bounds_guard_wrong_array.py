# expect: failed bounds
# Copies x into out but checks i only against x's length. Witness: dim=2, x.shape=(2,), out.shape=(1,): thread 1 writes out[1].
import verikern as vk


@vk.kernel
def copy_wrong_guard(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i]
