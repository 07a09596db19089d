# expect: proved
# A packed layout with two extra rows per group (nvalchemi's L-BFGS: each system's atoms, then its 2 cell rows; packed row atom_i + 2 * batch_idx[atom_i], num_packed = num_atoms + 2 * num_systems). The int64 contract 2 * phi.shape[0] <= ext.shape[0] - launch_dim leaves room for every thread's row and two rows per group; batch_idx in [0, phi.shape[0]) bounds the group.
import verikern as vk


@vk.kernel
def unpack_rows(ext: vk.array(dtype=vk.float32), phi: vk.array(dtype=vk.float32),
                batch_idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.launch_dim() <= batch_idx.shape[0] and vk.launch_dim() <= out.shape[0])
    vk.requires(vk.int64(2) * vk.int64(phi.shape[0]) <= vk.int64(ext.shape[0] - vk.launch_dim()))
    vk.requires(vk.all_in_range(batch_idx, 0, phi.shape[0]))
    atom_i = vk.tid()
    s = batch_idx[atom_i]
    out[atom_i] = phi[s] * ext[atom_i + 2 * s]
