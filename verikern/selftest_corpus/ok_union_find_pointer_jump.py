# expect: proved
# prove-args: --dim 256
# Union-find path compression by pointer jumping in one block: parent both supplies indices and is written; every store writes a value read from parent, so all_in_range(parent, 0, n) holds throughout and parent[p] stays in bounds. Barriers separate the reads from the writes.
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
        parent[i] = gp
        vk.sync_threads()
