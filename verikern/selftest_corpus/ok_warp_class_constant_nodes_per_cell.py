# expect: proved
# Sums each cell's corner nodes, as many as its type has: the type codes and node counts are int attributes of a plain class (warp-simdata's VTKCellTypes pattern), read from source; every offset leaves room for the largest cell (8 nodes).
import verikern as vk
import warp as wp


class CellTypes:
    """VTK cell type codes and their corner counts."""
    TETRA = 10
    HEXAHEDRON = 12
    TETRA_NODES = 4
    HEXAHEDRON_NODES = TETRA_NODES * 2


@vk.requires(lambda offsets, nodes: vk.all_in_range(offsets, 0, nodes.shape[0] - 7))
@wp.kernel
def first_corner_sum(types: wp.array(dtype=wp.uint8), offsets: wp.array(dtype=wp.int32),
                     nodes: wp.array(dtype=float), out: wp.array(dtype=float)):
    c = wp.tid()
    if c >= types.shape[0] or c >= out.shape[0] or c >= offsets.shape[0]:
        return
    n = 0
    if int(types[c]) == CellTypes.TETRA:
        n = CellTypes.TETRA_NODES
    elif int(types[c]) == CellTypes.HEXAHEDRON:
        n = CellTypes.HEXAHEDRON_NODES
    start = offsets[c]
    s = float(0.0)
    for k in range(n):
        s += nodes[start + k]
    out[c] = s
