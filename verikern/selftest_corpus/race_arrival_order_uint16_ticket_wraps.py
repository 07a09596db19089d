# expect: failed race
# Scatters values in arrival order through a uint16 slot counter: the slot a thread gets is the counter's old value, which wraps to 0 after 65,536 increments, so on a launch of 65,537 threads two threads write out[0]. The prover's counterexample is a launch of millions of threads; replay confirms it on a launch of 2**16 + 1 threads, the smallest on which the counter repeats a value. Witness: 65,537 threads; thread 0 and one later thread both get slot 0.
# bug: 18:9 race 18:9
# witness race: dim=65537, block_dim=256, x=zeros(float32, 65537), count=zeros(uint16, 1), out=zeros(float32, 65537)
import verikern as vk


@vk.kernel
def arrival_order_u16(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.uint16),
                      out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        slot = vk.atomic_add(count, 0, vk.uint16(1))
        out[int(slot)] = x[i]
