"""Warp struct constructors with arguments and `wp.static(int(...))` of a class
constant, written for verikern's compatibility suite (warp-simdata's
`return ElementHandle(elem_id=..., ...)` and `wp.static(int(VTKCellTypes.X))`):
every field given positionally or by name in any order, returned from a func,
assigned to a local (also from the local's own fields), stored into an array of
structs and passed to a func. Valid Warp and valid verikern."""
import warp as wp

import verikern as vk


class Kinds:
    EMPTY = 0
    WEDGE = 13
    POLY = 42


@wp.struct
class Cell:
    elem_id: wp.int32
    corner: wp.vec2i
    kind: wp.int32


@wp.struct
class Tagged:
    cell: Cell
    weight: float


@wp.func
def cell_by_name(i: wp.int32, kind: wp.int32) -> Cell:
    return Cell(elem_id=i, corner=wp.vec2i(i, 2 * i), kind=kind)


@wp.func
def cell_in_order(i: wp.int32) -> Cell:
    return Cell(i + 1, wp.vec2i(3, i), Kinds.WEDGE)


@wp.func
def cell_out_of_order(i: wp.int32) -> Cell:
    return Cell(kind=Kinds.POLY, elem_id=i * 3, corner=wp.vec2i(i, 7))


@wp.func
def spread(c: Cell) -> wp.int32:
    return c.elem_id * 1000 + c.corner[0] * 100 + c.corner[1] * 10 + c.kind


@vk.requires(lambda kinds, offsets, out: offsets.shape[0] == kinds.shape[0] + 1
             and out.shape[0] == kinds.shape[0] and vk.launch_dim() == kinds.shape[0])
@wp.kernel
def cursors(kinds: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32),
            out: wp.array(dtype=wp.int32), cells: wp.array(dtype=Cell)):
    i = wp.tid()
    a = cell_by_name(i, kinds[i])
    b = cell_in_order(i)
    c = cell_out_of_order(i)
    d = Cell(c.kind, c.corner, c.elem_id)    # swaps two fields of c
    d = Cell(d.kind, d.corner, d.elem_id)    # and back, from d's own fields
    t = Tagged(cell=b, weight=0.5)
    count = wp.int32(0)
    if a.kind == wp.static(int(Kinds.POLY)):
        count = offsets[i + 1] - offsets[i]
    if i < cells.shape[0]:
        cells[i] = Cell(elem_id=a.elem_id + count, corner=t.cell.corner,
                        kind=d.kind)
    out[i] = spread(a) + spread(b) * 7 + spread(c) * 11 + spread(d) * 13 + count \
        + spread(Cell(1, wp.vec2i(2, 3), 4)) + int(t.weight * 2.0)
