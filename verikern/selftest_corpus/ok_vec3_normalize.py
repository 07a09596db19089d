# expect: proved
# Normalises an array of vec3 into a second array of the same length.
import verikern as vk


@vk.kernel
def normalize_all(v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    vk.requires(out.shape[0] == v.shape[0])
    i = vk.tid()
    if i < v.shape[0]:
        out[i] = vk.normalize(v[i])
