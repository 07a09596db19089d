# expect: proved
# Sorted segment ids, each segment's first element writes its segment's value (nvalchemi's is_first_atom_of_system pattern: energy[batch_idx[i]] written only where batch_idx[i - 1] != batch_idx[i]). all_sorted(batch_idx) makes the first element of each run unique, so no two threads write one element; all_in_range keeps the id in bounds.
import verikern as vk


@vk.kernel
def first_atom_energy(batch_idx: vk.array(dtype=vk.int32), atom_energy: vk.array(dtype=vk.float32),
                      energy: vk.array(dtype=vk.float32)):
    vk.requires(vk.launch_dim() <= batch_idx.shape[0])
    vk.requires(vk.launch_dim() <= atom_energy.shape[0])
    vk.requires(vk.all_in_range(batch_idx, 0, energy.shape[0]))
    vk.requires(vk.all_sorted(batch_idx))
    i = vk.tid()
    s = batch_idx[i]
    if i == 0 or batch_idx[i - 1] != s:
        energy[s] = atom_energy[i]
