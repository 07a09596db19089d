# expect: proved
# Copies x into out; no requires, instead the guard checks i against both lengths, so any shapes are safe.
import verikern as vk


@vk.kernel
def copy_both_guarded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = x[i]
