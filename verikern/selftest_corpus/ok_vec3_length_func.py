# expect: proved
# Distance of every vec3 point to a centre (cx, cy, cz), through a @vk.func helper, written to a float array of the same length.
import verikern as vk


@vk.func
def distance(a: vk.vec3, b: vk.vec3) -> vk.float32:
    return vk.length(a - b)


@vk.kernel
def distances(p: vk.array(dtype=vk.vec3), cx: vk.float32, cy: vk.float32, cz: vk.float32, out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == p.shape[0])
    i = vk.tid()
    if i < p.shape[0]:
        out[i] = distance(p[i], vk.vec3(cx, cy, cz))
