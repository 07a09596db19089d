# expect: proved
# Rotates x left by one: out[i] = x[(i + 1) % n]; inside the guard i < n, n >= 1, so the modulo by the length is never by zero.
import verikern as vk


@vk.kernel
def rotate_left(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[(i + 1) % x.shape[0]]
