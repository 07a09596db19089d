# expect: failed bounds
# ok_neighbor_matrix_padded skipping only past the padding (`if j > num_atoms`): under the same contract an empty slot, which holds num_atoms, is read one past the end of positions. Witness: two atoms, the first with one empty slot.
# bug: 24:29 bounds
# bug: 24:71 bounds
# witness bounds: dim=1, block_dim=1, positions=zeros(float32, 2), charges=zeros(float32, 2), neighbor_matrix=array(int32, [[2], [0]]), energies=zeros(float32, 2)
import verikern as vk
import warp as wp


@vk.requires(lambda positions, charges, neighbor_matrix, energies: positions.shape[0] <= charges.shape[0] and vk.launch_dim() <= neighbor_matrix.shape[0] and vk.launch_dim() <= energies.shape[0])
@vk.requires(lambda positions, neighbor_matrix: vk.all_in_range(neighbor_matrix, 0, positions.shape[0] + 1))
@wp.kernel
def pair_energy_padding_read(positions: wp.array(dtype=wp.float32), charges: wp.array(dtype=wp.float32),
                             neighbor_matrix: wp.array2d(dtype=wp.int32), energies: wp.array(dtype=wp.float32)):
    i = wp.tid()
    num_atoms = positions.shape[0]
    if i >= num_atoms:
        return
    acc = float(0.0)
    for slot in range(neighbor_matrix.shape[1]):
        j = neighbor_matrix[i, slot]
        if j > num_atoms:
            continue
        acc += charges[i] * charges[j] / (1.0 + wp.abs(positions[i] - positions[j]))
    energies[i] = acc
