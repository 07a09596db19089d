# expect: failed bounds
# Thread 0 advances an offset from `base` by 3 per step and writes x[s] under the guard s < x.shape[0] only: with base near 2**31 the int32 offset wraps negative and passes the guard. Witness: dim=1, base=2147483647, steps=1, x.shape=(1,): s = 2**31 + 2 wraps to -2147483646 (the model needs base near 2**31 - 1 and a short loop).
# bug: 16:9 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), base=2147483647, steps=1
import verikern as vk


@vk.kernel
def offset_after_steps(x: vk.array(dtype=vk.float32), base: int, steps: int):
    vk.requires(base >= 0 and steps >= 0)
    i = vk.tid()
    s = base
    for k in range(steps):
        s = s + 3
    if i == 0 and s < x.shape[0]:
        x[s] = 1.0
