# expect: proved
# prove-args: --dim 1024 --block-dim 256
# Writes out[tid] with no guard; correct only because the command line fixes the launch to 1024 threads (--dim 1024) and the requires fixes len(out) to 1024. Without --dim, dim=1025 would write out[1024].
import verikern as vk


@vk.kernel
def fill_exact(out: vk.array(dtype=vk.float32), value: vk.float32):
    vk.requires(out.shape[0] == 1024)
    i = vk.tid()
    out[i] = value
