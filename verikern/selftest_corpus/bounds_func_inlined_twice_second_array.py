# expect: failed bounds
# A @vk.func that loads a[i] is inlined twice (its load has two sites at one source position); the guard covers x and out but not y, so the second copy reads y out of bounds. Witness: dim=4, y.shape=(2,): thread 2 reads y[2].
# bug: 10:12 bounds
# witness bounds: dim=4, block_dim=4, x=zeros(float32, 4), y=zeros(float32, 2), out=zeros(float32, 4)
import verikern as vk


@vk.func
def load(a: vk.array(dtype=vk.float32), i: vk.int32) -> vk.float32:
    return a[i]


@vk.kernel
def add_loaded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = load(x, i) + load(y, i)
