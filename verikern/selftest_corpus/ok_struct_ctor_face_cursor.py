# expect: proved
# Counts the faces of each cell through a cursor struct that a func returns straight from a constructor with named fields (warp-simdata's `return ElementHandle(elem_id=..., ...)`); a polyhedron (kind `wp.static(int(Kinds.POLY))`, a class constant) reads its face range from CSR offsets at the cursor's cell and the one after it.
import warp as wp


class Kinds:
    HEX = 12
    POLY = 42


@wp.struct
class Cursor:
    cell: wp.int32
    kind: wp.int32
    after: wp.int32


@wp.func
def cursor_at(kinds: wp.array(dtype=wp.int32), i: wp.int32) -> Cursor:
    return Cursor(cell=i, kind=kinds[i], after=i + 1)


@wp.kernel
def count_faces(kinds: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32),
                counts: wp.array(dtype=wp.int32)):
    wp.requires(offsets.shape[0] == kinds.shape[0] + 1 and counts.shape[0] == kinds.shape[0])
    i = wp.tid()
    if i < kinds.shape[0]:
        c = cursor_at(kinds, i)
        n = 6
        if c.kind == wp.static(int(Kinds.POLY)):
            n = offsets[c.after] - offsets[c.cell]
        counts[c.cell] = n
