# expect: failed bounds
# The packed layout of ok_packed_rows_per_group read with three rows per group (atom_i + 3 * s) under the contract for two: the last group's rows run past the buffer. Witness: one thread, 4 groups, a buffer of 1 + 2 * 4 = 9 rows, batch_idx = [3]: row 0 + 3 * 3 = 9.
# bug: 16:28 bounds
# witness bounds: dim=1, block_dim=1, ext=zeros(float32, 9), phi=zeros(float32, 4), batch_idx=array(int32, [3]), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def unpack_rows(ext: vk.array(dtype=vk.float32), phi: vk.array(dtype=vk.float32),
                batch_idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.launch_dim() <= batch_idx.shape[0] and vk.launch_dim() <= out.shape[0])
    vk.requires(vk.int64(2) * vk.int64(phi.shape[0]) <= vk.int64(ext.shape[0] - vk.launch_dim()))
    vk.requires(vk.all_in_range(batch_idx, 0, phi.shape[0]))
    atom_i = vk.tid()
    s = batch_idx[atom_i]
    out[atom_i] = phi[s] * ext[atom_i + 3 * s]
