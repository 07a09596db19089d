# expect: proved
# A @vk.func that loads a[i] is inlined twice (its load has two sites at one source position); the guard covers both arrays it is called with, so both copies are in bounds.
import verikern as vk


@vk.func
def load(a: vk.array(dtype=vk.float32), i: vk.int32) -> vk.float32:
    return a[i]


@vk.kernel
def add_loaded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < y.shape[0] and i < out.shape[0]:
        out[i] = load(x, i) + load(y, i)
