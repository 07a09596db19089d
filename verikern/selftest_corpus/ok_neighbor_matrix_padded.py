# expect: proved
# A neighbour-matrix pair sum as nvalchemi's Coulomb kernels write it (`j = neighbor_matrix[i, slot]`, `if j >= num_atoms: continue`): empty slots hold the padding num_atoms, so the contract verikern suggests for the 2-d index array admits it, `vk.all_in_range(neighbor_matrix, 0, positions.shape[0] + 1)`; the guard skips it and no element is negative. Its near miss skips only past the padding: bounds_neighbor_matrix_padding_read.
import verikern as vk
import warp as wp


@vk.requires(lambda positions, charges, neighbor_matrix, energies: positions.shape[0] <= charges.shape[0] and vk.launch_dim() <= neighbor_matrix.shape[0] and vk.launch_dim() <= energies.shape[0])
@vk.requires(lambda positions, neighbor_matrix: vk.all_in_range(neighbor_matrix, 0, positions.shape[0] + 1))
@wp.kernel
def pair_energy(positions: wp.array(dtype=wp.float32), charges: wp.array(dtype=wp.float32),
                neighbor_matrix: wp.array2d(dtype=wp.int32), energies: wp.array(dtype=wp.float32)):
    i = wp.tid()
    num_atoms = positions.shape[0]
    if i >= num_atoms:
        return
    acc = float(0.0)
    for slot in range(neighbor_matrix.shape[1]):
        j = neighbor_matrix[i, slot]
        if j >= num_atoms:
            continue
        acc += charges[i] * charges[j] / (1.0 + wp.abs(positions[i] - positions[j]))
    energies[i] = acc
