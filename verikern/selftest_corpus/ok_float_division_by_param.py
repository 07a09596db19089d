# expect: proved
# Divides floats by a parameter; float division by zero is IEEE (inf/nan), not a div-zero obligation.
import verikern as vk


@vk.kernel
def normalize_by(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), scale: vk.float32):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] / scale
