# expect: failed bounds
# Counts the faces of each cell through a cursor struct that a func returns straight from a constructor with named fields, as ok_struct_ctor_face_cursor does, but the cursor's `after` field is built as i + 2: the last cell's polyhedron reads offsets one past its end. Witness: one polyhedron cell with two offsets: thread 0 reads offsets[2].
# bug: 34:17 bounds
# witness bounds: dim=1, block_dim=1, kinds=array(int32, [42]), offsets=zeros(int32, 2), counts=zeros(int32, 1)
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
    return Cursor(cell=i, kind=kinds[i], after=i + 2)


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
