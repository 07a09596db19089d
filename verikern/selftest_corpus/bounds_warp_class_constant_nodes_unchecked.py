# expect: failed bounds
# The corner gather trusting the cell type's node count (CellTypes.HEXAHEDRON_NODES = 8, a plain class constant) instead of the offsets: a hexahedron stored with fewer nodes reads past the node array. Witness: one hexahedron, offsets=[0, 1], one node.
# bug: 28:14 bounds
# witness bounds: dim=1, block_dim=1, types=array(uint8, [12]), offsets=array(int32, [0, 1]), nodes=zeros(float32, 1), out=zeros(float32, 1)
import warp as wp


class CellTypes:
    """VTK cell type codes and their corner counts."""
    TETRA = 10
    HEXAHEDRON = 12
    TETRA_NODES = 4
    HEXAHEDRON_NODES = TETRA_NODES * 2


@wp.kernel
def first_corner_sum_unchecked(types: wp.array(dtype=wp.uint8), offsets: wp.array(dtype=wp.int32),
                               nodes: wp.array(dtype=float), out: wp.array(dtype=float)):
    c = wp.tid()
    if c >= types.shape[0] or c >= out.shape[0] or c + 1 >= offsets.shape[0]:
        return
    n = 0
    if int(types[c]) == CellTypes.HEXAHEDRON:
        n = CellTypes.HEXAHEDRON_NODES
    start = offsets[c]
    s = float(0.0)
    for k in range(n):
        s += nodes[start + k]
    out[c] = s
