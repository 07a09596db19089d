# expect: failed assert
# The block-sizes kernel of ok_struct_held_arrays_block_sizes with the guard one too long (`count <= blk.offsets.shape[0]`): it reads one past its own block's offsets, which can still lie inside the padded width of a longer block, so only the held read's length assert catches it. Witness: one block with an empty offsets array and the span (0, -1), so count = 0: thread 0 reads offsets[0] of a length-0 array.
# bug: 30:30 assert
# witness assert: dim=1, block_dim=1, ds__blocks__offsets=zeros(int32, (1, 1)), ds__blocks__offsets__len=array(int32, [0]), ds__blocks__span=array(int32, [[0, -1]]), ds__count=0, face_counts=zeros(int32, 1), node_counts=zeros(int32, 1)
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
        if count >= 0 and count <= blk.offsets.shape[0]:
            node_counts[b] = blk.offsets[count]
