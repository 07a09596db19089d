# expect: proved
# A dataset struct holds, beside its own arrays, an array of block structs that hold arrays of their own (warp-simdata's `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`); the kernel never reaches that field (its leaves are parameters it never reads), and maps each face id to its block with wp.lower_bound over the dataset's own block starts, clamped to the last block.
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
def face_blocks(ds: Dataset, out: wp.array(dtype=wp.int32)):
    wp.requires(out.shape[0] == ds.faces.shape[0] and ds.block_starts.shape[0] > 0)
    slot = wp.tid()
    if slot < ds.faces.shape[0]:
        face = wp.abs(ds.faces[slot])
        b = wp.lower_bound(ds.block_starts, face)
        if b > 0 and face < ds.block_starts[b]:
            b = b - 1
        out[slot] = face - ds.block_starts[b]
