# expect: failed assert
# Asserts that x is not empty, but shapes may be 0. Witness: dim=1, x.shape=(0,): thread 0 fails the assert.
# bug: 10:5 assert
# witness assert: dim=1, block_dim=1, x=zeros(float32, 0), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def first_element(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    assert x.shape[0] > 0, "x must not be empty"
    i = vk.tid()
    if i < out.shape[0] and i < x.shape[0]:
        out[i] = x[0]
