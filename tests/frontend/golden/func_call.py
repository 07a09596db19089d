import verikern as vk


@vk.func
def sign(x: float) -> float:
    if x < 0.0:
        return -1.0
    return 1.0


@vk.kernel
def signs(a: vk.array(dtype=float)):
    i = vk.tid()
    if i < a.shape[0]:
        a[i] = sign(a[i])
