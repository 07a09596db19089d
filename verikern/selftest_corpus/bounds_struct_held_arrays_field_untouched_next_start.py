# expect: failed bounds
# A dataset struct holds an array of block structs that hold arrays (the kernel never reaches it), as ok_struct_held_arrays_field_untouched does, but the kernel reads the start after the block wp.lower_bound found, which is past the end for the last block. Witness: one block start and one face: thread 0 reads block_starts[1].
# bug: 27:21 bounds
# witness bounds: dim=1, block_dim=1, ds__blocks__connectivity=zeros(int32, (0, 0)), ds__blocks__connectivity__len=zeros(int32, 0), ds__blocks__first=zeros(int32, 0), ds__block_starts=array(int32, [0]), ds__faces=array(int32, [3]), out=zeros(int32, 1)
import warp as wp


@wp.struct
class Block:
    connectivity: wp.array(dtype=wp.int32)
    first: wp.int32


@wp.struct
class Dataset:
    blocks: wp.array(dtype=Block)
    block_starts: wp.array(dtype=wp.int32)
    faces: wp.array(dtype=wp.int32)


@wp.kernel
def face_block_sizes(ds: Dataset, out: wp.array(dtype=wp.int32)):
    wp.requires(out.shape[0] == ds.faces.shape[0] and ds.block_starts.shape[0] > 0)
    slot = wp.tid()
    if slot < ds.faces.shape[0]:
        b = wp.lower_bound(ds.block_starts, wp.abs(ds.faces[slot]))
        out[slot] = ds.block_starts[b + 1] - ds.block_starts[b]
