import verikern as vk


@vk.kernel
def advance(p: vk.array(dtype=vk.vec3), v: vk.array(dtype=vk.vec3), dt: float):
    i = vk.tid()
    if i < p.shape[0]:
        p[i] = p[i] + v[i] * dt
        v[i].y
