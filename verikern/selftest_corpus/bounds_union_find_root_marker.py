# expect: failed bounds
# prove-args: --dim 256
# Pointer jumping that marks roots with -1: that store breaks all_in_range(parent, 0, n), so the contract is not assumed for the written array, and in the next step a thread whose parent is a marked root reads parent[-1]. Witness: every parent 0; thread 0 marks itself, then reads parent[-1].
# bug: 17:14 bounds
# witness bounds: dim=256, block_dim=256, parent=zeros(int32, 256)
import verikern as vk


@vk.kernel(block_dim=256)
def pointer_jump(parent: vk.array(dtype=vk.int32)):
    vk.requires(parent.shape[0] == vk.launch_dim())
    vk.requires(vk.grid_dim() == 1)
    vk.requires(vk.all_in_range(parent, 0, parent.shape[0]))
    i = vk.tid()
    for step in range(8):
        p = parent[i]
        gp = parent[p]
        vk.sync_threads()
        if p == i:
            parent[i] = -1
        else:
            parent[i] = gp
        vk.sync_threads()
