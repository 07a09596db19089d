# expect: proved
# Cross product of each vec3 with the next one for i + 1 < len(v) (the last output is left untouched).
import verikern as vk


@vk.kernel
def cross_next_guarded(v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    vk.requires(out.shape[0] == v.shape[0])
    i = vk.tid()
    if i + 1 < v.shape[0]:
        out[i] = vk.cross(v[i], v[i + 1])
