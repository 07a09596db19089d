# expect: proved
# warp-simdata's _nface_n_block_sizes_kernel with its guard: a dataset struct holds an array of block structs, each holding its own offsets array (arrays held by a struct array's elements: a padded [n, W] array and the lengths, every read asserted below its own element's length); each thread reads its block's face count from the block's inclusive id span and the node count from the block's offsets, guarded by the length of that block's own array.
import warp as wp


@wp.struct
class Block:
    offsets: wp.array(dtype=wp.int32)
    span: wp.vec2i


@wp.struct
class Dataset:
    blocks: wp.array(dtype=Block)
    count: wp.int32


@wp.kernel
def block_sizes(ds: Dataset, face_counts: wp.array(dtype=wp.int32), node_counts: wp.array(dtype=wp.int32)):
    wp.requires(face_counts.shape[0] == ds.blocks.shape[0] and node_counts.shape[0] == ds.blocks.shape[0])
    b = wp.tid()
    if b < ds.blocks.shape[0]:
        blk = ds.blocks[b]
        count = blk.span.y - blk.span.x + 1
        face_counts[b] = count
        node_counts[b] = 0
        if count >= 0 and count < blk.offsets.shape[0]:
            node_counts[b] = blk.offsets[count]
