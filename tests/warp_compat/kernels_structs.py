"""Warp structs written for verikern's compatibility suite: a struct
parameter with scalar, vector, array and nested struct fields, struct locals
built with `S()`, field writes (also into a vector field's component),
struct copies, structs passed to and returned from funcs, and arrays of
structs (read and written whole and by field). Valid Warp and valid verikern."""
import warp as wp

import verikern as vk


@wp.struct
class Frame:
    scale: float
    offset: wp.vec3
    turn: wp.quat


@wp.struct
class Cloud:
    n: int
    frame: Frame
    points: wp.array(dtype=wp.vec3)
    weights: wp.array(dtype=float)


@wp.struct
class Cursor:
    position: wp.vec3
    idx: wp.int32
    valid: wp.bool


@wp.func
def placed(c: Cloud, i: int) -> wp.vec3:
    return wp.quat_rotate(c.frame.turn, c.points[i] * c.frame.scale) + c.frame.offset


@wp.func
def pushed(cur: Cursor, d: wp.vec3) -> wp.vec3:
    return cur.position + d * float(cur.idx)


@vk.requires(lambda c, out: c.n <= c.points.shape[0] and c.n <= c.weights.shape[0]
             and c.n <= out.shape[0])
@vk.requires(lambda total: total.shape[0] >= 1)
@wp.kernel
def clouds(c: Cloud, out: wp.array(dtype=wp.vec3), total: wp.array(dtype=float)):
    i = wp.tid()
    if i < c.n:
        cur = Cursor()
        cur.position = placed(c, i)
        cur.idx = i
        cur.valid = c.weights[i] > 0.0
        other = cur
        other.position.x = other.position.x + 1.0
        if other.valid:
            out[i] = pushed(other, cur.position)
            wp.atomic_add(total, 0, c.weights[i])
        else:
            out[i] = c.frame.offset


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float
    alive: wp.bool
    cell: wp.int32


@wp.func
def energy(p: Particle) -> float:
    return 0.5 * p.mass * wp.dot(p.vel, p.vel)


@wp.func
def kick(ps: wp.array(dtype=Particle), i: int, dv: wp.vec3):
    ps[i].vel = ps[i].vel + dv


@wp.kernel
def particles(ps: wp.array(dtype=Particle), out: wp.array(dtype=Particle),
              e: wp.array(dtype=float), dt: float):
    i = wp.tid()
    if i < len(ps) and i < out.shape[0] and i < e.shape[0]:
        p = ps[i]
        if p.alive:
            p.pos = p.pos + p.vel * dt
            p.cell = int(p.pos[0])
        ps[i].mass = p.mass * 2.0
        kick(ps, i, wp.vec3(0.0, -1.0, 0.0))
        out[i] = p
        e[i] = energy(p) + ps[i].vel.y


@wp.struct
class Hit:
    t: float
    normal: wp.vec3
    found: wp.bool


@wp.func
def no_hit() -> Hit:
    return Hit()


@wp.func
def hit_plane(o: wp.vec3, d: wp.vec3) -> Hit:
    h = Hit()
    if d[2] != 0.0:
        h.t = -o[2] / d[2]
        h.normal = wp.vec3(0.0, 0.0, 1.0)
        h.found = h.t > 0.0
    return h


@wp.kernel
def hits(o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), t: wp.array(dtype=float)):
    i = wp.tid()
    if i < o.shape[0] and i < d.shape[0] and i < t.shape[0]:
        h = hit_plane(o[i], d[i])
        m = no_hit()
        if h.found:
            m = h
        t[i] = m.t + m.normal[2]
