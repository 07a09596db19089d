# expect: failed race
# The segment-head kernel with the guard's comparison off by one (<= where != picks the run's first element): with sorted ids batch_idx[i - 1] <= batch_idx[i] always holds, so every element of a run writes its segment's value. Witness: batch_idx [0, 0]: threads 0 and 1 both write energy[0].
# bug: 18:9 race 18:9
# witness race: dim=2, block_dim=2, batch_idx=array(int32, [0, 0]), atom_energy=zeros(float32, 2), energy=zeros(float32, 1)
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
    if i == 0 or batch_idx[i - 1] <= s:
        energy[s] = atom_energy[i]
