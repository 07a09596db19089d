# expect: proved
# Thread 0 advances an offset from `base` by 3 per step and writes x[s] under the guard 0 <= s < x.shape[0]: a wrapped (negative) offset is refused by the guard.
import verikern as vk


@vk.kernel
def offset_after_steps_guarded(x: vk.array(dtype=vk.float32), base: int, steps: int):
    vk.requires(base >= 0 and steps >= 0)
    i = vk.tid()
    s = base
    for k in range(steps):
        s = s + 3
    if i == 0 and s >= 0 and s < x.shape[0]:
        x[s] = 1.0
