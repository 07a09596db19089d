"""Lowering of Warp's builtins over quaternions, rigid transforms, spatial
vectors and matrix algebra into scalar MIR arithmetic.

Invariants: a value is the tuple of its components (vectors and quats x, y,
z, w; transforms p then q; matrices row-major); each builtin computes
exactly the formula of Warp 1.19's native headers (quat.h, spatial.h,
mat.h), term for term and in the same association order, in the
components' own type, so every backend and the prover give it Warp's
meaning; constants are built in that type too. An argument is lowered once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from verikern.hir.types import F64
from verikern.mir.nodes import Cast

if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import LowererHost as _Host
else:
    _Host = object


class RigidLowering(_Host):
    """Mixin of Lowerer (see module docstring)."""

    # ------------------------------------------------------------ helpers
    def _mul(self, a, b, loc):
        return self.binop("mul", a, b, loc)

    def _add(self, a, b, loc):
        return self.binop("add", a, b, loc)

    def _sub(self, a, b, loc):
        return self.binop("sub", a, b, loc)

    def quat_rotate(self, q, v, loc, inverse=False):
        """Warp's quat_rotate (quat_rotate_inv with `inverse`):
        x*c + q.xyz*d +- cross(q.xyz, x)*w*2, c = 2w^2 - 1, d = 2 dot(q.xyz, x)."""
        qx, qy, qz, qw = q
        two = self.const(2, qw.type)
        c = self._sub(self._mul(self._mul(two, qw, loc), qw, loc), self.const(1, qw.type), loc)
        d = self._mul(two, self._add(self._add(self._mul(qx, v[0], loc), self._mul(qy, v[1], loc),
                                               loc), self._mul(qz, v[2], loc), loc), loc)
        crosses = (self._sub(self._mul(qy, v[2], loc), self._mul(qz, v[1], loc), loc),
                   self._sub(self._mul(qz, v[0], loc), self._mul(qx, v[2], loc), loc),
                   self._sub(self._mul(qx, v[1], loc), self._mul(qy, v[0], loc), loc))
        out = []
        for k in range(3):
            base = self._add(self._mul(v[k], c, loc), self._mul(q[k], d, loc), loc)
            turn = self._mul(self._mul(crosses[k], qw, loc), two, loc)
            out.append(self.binop("sub" if inverse else "add", base, turn, loc))
        return tuple(out)

    def _rot(self, e, hint):
        q, v = (self.lower_expr(a) for a in e.args)
        return self.quat_rotate(q, v, e.loc, inverse=e.name == "quat_rotate_inv")

    def _quat_inverse(self, e, hint):
        (q,) = (self.lower_expr(a) for a in e.args)
        return tuple(self.unop("neg", x, e.loc) for x in q[:3]) + (q[3],)

    def _quat_from_axis_angle(self, e, hint):
        axis, (angle,) = (self.lower_expr(a) for a in e.args)
        half = self._mul(angle, self.const(0.5, angle.type), e.loc)
        w = self.unop("cos", half, e.loc)
        s = self.unop("sin", half, e.loc)
        return tuple(self._mul(x, s, e.loc) for x in axis) + (w,)

    def _quat_to_matrix(self, e, hint):
        """Columns: the quat applied to the unit vectors (Warp's quat_to_matrix)."""
        (q,) = (self.lower_expr(a) for a in e.args)
        zero, one = self.const(0, q[0].type), self.const(1, q[0].type)
        cols = [self.quat_rotate(q, tuple(one if i == k else zero for i in range(3)), e.loc)
                for k in range(3)]
        return tuple(cols[c][r] for r in range(3) for c in range(3))

    # ------------------------------------------------------------ transforms
    def _transform_apply(self, e, hint):
        """transform_point (p + rotate(q, x); a 4x4 matrix: M (x, 1)) and
        transform_vector (rotate(q, x); a 4x4 matrix: M (x, 0))."""
        t, v = (self.lower_expr(a) for a in e.args)
        point = e.name == "transform_point"
        if len(t) == 16:   # a 4x4 matrix, homogeneous coordinates
            w = self.const(1 if point else 0, v[0].type)
            return tuple(self.dot(t[4 * r:4 * r + 4], (*v, w), e.loc) for r in range(3))
        r = self.quat_rotate(t[3:], v, e.loc)
        return tuple(self._add(p, x, e.loc) for p, x in zip(t[:3], r)) if point else r

    def _transform_multiply(self, e, hint):
        """(rotate(a.q, b.p) + a.p, a.q * b.q)."""
        a, b = (self.lower_expr(x) for x in e.args)
        return self.compose(a, b, e.loc)

    def compose(self, a, b, loc):
        r = self.quat_rotate(a[3:], b[:3], loc)
        return tuple(self._add(x, p, loc) for x, p in zip(r, a[:3])) + \
            self.quat_mul(a[3:], b[3:], loc)

    def _transform_inverse(self, e, hint):
        """(-rotate(q^-1, p), q^-1)."""
        (t,) = (self.lower_expr(a) for a in e.args)
        qi = tuple(self.unop("neg", x, e.loc) for x in t[3:6]) + (t[6],)
        p = tuple(self.unop("neg", x, e.loc) for x in self.quat_rotate(qi, t[:3], e.loc))
        return p + qi

    # ------------------------------------------------------------ spatial
    def _spatial_cross(self, e, hint):
        """spatial_cross: (w_a x w_b, v_a x w_b + w_a x v_b); spatial_cross_dual:
        (w_a x w_b + v_a x v_b, w_a x v_b)."""
        a, b = (self.lower_expr(x) for x in e.args)
        wa, va, wb, vb = a[:3], a[3:], b[:3], b[3:]
        loc = e.loc

        def plus(x, y):
            return tuple(self._add(i, j, loc) for i, j in zip(x, y))

        if e.name == "spatial_cross":
            return self.cross(wa, wb, loc) + plus(self.cross(va, wb, loc), self.cross(wa, vb, loc))
        return plus(self.cross(wa, wb, loc), self.cross(va, vb, loc)) + self.cross(wa, vb, loc)

    def _spatial_adjoint(self, e, hint):
        """[[R, 0], [S, R]] as a 6x6 matrix."""
        r, s = (self.lower_expr(x) for x in e.args)
        zero = self.const(0, r[0].type)
        out = []
        for i in range(6):
            for j in range(6):
                if i < 3:
                    out.append(r[3 * i + j] if j < 3 else zero)
                else:
                    out.append(s[3 * (i - 3) + j] if j < 3 else r[3 * (i - 3) + j - 3])
        return tuple(out)

    # ------------------------------------------------------------ matrices
    def determinant_of(self, m, n, loc):
        if n == 2:   # m00 m11 - m10 m01
            return self._sub(self._mul(m[0], m[3], loc), self._mul(m[2], m[1], loc), loc)
        if n == 4:
            return self.cofactors4(m, loc)[1]
        return self.dot(m[0:3], self.cross(m[3:6], m[6:9], loc), loc)   # row0 . (row1 x row2)

    def _wide(self, v, loc):
        """`v` as float64 (Warp's `double` temporaries of the 4x4 formulas)."""
        if v.type == F64:
            return v
        r = self.b.new_value(F64, "")
        self.emit(Cast(r, v, loc))
        return r

    def _narrow(self, v, t, loc):
        if t == F64:
            return v
        r = self.b.new_value(t, "")
        self.emit(Cast(r, v, loc))
        return r

    def cofactors4(self, m, loc):
        """Warp's 4x4 cofactors (mat.h, after USD): ({(r, c): cofactor}, det),
        the 2x2 minors computed in the matrix's type and widened to double,
        the cofactors in double (those of the first two columns rounded back
        to the matrix's type), det summed in the matrix's type."""
        t = m[0].type
        x = {(r, c): m[4 * r + c] for r in range(4) for c in range(4)}
        w = {k: self._wide(v, loc) for k, v in x.items()}

        def minors(c0, c1):   # y_ij = x_i,c0 x_j,c1 - x_j,c0 x_i,c1, rows i < j
            return {(i, j): self._wide(self._sub(self._mul(x[i, c0], x[j, c1], loc),
                                                 self._mul(x[j, c0], x[i, c1], loc), loc), loc)
                    for i in range(4) for j in range(i + 1, 4)}

        def cof(terms):   # ((a y + b y) ...) in double, left to right, with signs
            acc = None
            for sign, xv, yv in terms:
                p = self._mul(xv, yv, loc)
                acc = p if acc is None else self.binop("add" if sign > 0 else "sub", acc, p, loc)
            return acc

        y = minors(0, 1)
        z = {(3, 3): cof([(1, w[0, 2], y[1, 2]), (-1, w[1, 2], y[0, 2]), (1, w[2, 2], y[0, 1])]),
             (2, 3): cof([(1, w[1, 2], y[0, 3]), (-1, w[3, 2], y[0, 1]), (-1, w[0, 2], y[1, 3])]),
             (1, 3): cof([(1, w[0, 2], y[2, 3]), (-1, w[2, 2], y[0, 3]), (1, w[3, 2], y[0, 2])]),
             (0, 3): cof([(1, w[2, 2], y[1, 3]), (-1, w[3, 2], y[1, 2]), (-1, w[1, 2], y[2, 3])]),
             (3, 2): cof([(1, w[1, 3], y[0, 2]), (-1, w[2, 3], y[0, 1]), (-1, w[0, 3], y[1, 2])]),
             (2, 2): cof([(1, w[0, 3], y[1, 3]), (-1, w[1, 3], y[0, 3]), (1, w[3, 3], y[0, 1])]),
             (1, 2): cof([(1, w[2, 3], y[0, 3]), (-1, w[3, 3], y[0, 2]), (-1, w[0, 3], y[2, 3])]),
             (0, 2): cof([(1, w[1, 3], y[2, 3]), (-1, w[2, 3], y[1, 3]), (1, w[3, 3], y[1, 2])])}
        y = minors(2, 3)
        first = {(3, 0): [(1, w[1, 1], y[0, 2]), (-1, w[2, 1], y[0, 1]), (-1, w[0, 1], y[1, 2])],
                 (2, 0): [(1, w[0, 1], y[1, 3]), (-1, w[1, 1], y[0, 3]), (1, w[3, 1], y[0, 1])],
                 (1, 0): [(1, w[2, 1], y[0, 3]), (-1, w[3, 1], y[0, 2]), (-1, w[0, 1], y[2, 3])],
                 (0, 0): [(1, w[1, 1], y[2, 3]), (-1, w[2, 1], y[1, 3]), (1, w[3, 1], y[1, 2])],
                 (3, 1): [(1, w[0, 0], y[1, 2]), (-1, w[1, 0], y[0, 2]), (1, w[2, 0], y[0, 1])],
                 (2, 1): [(1, w[1, 0], y[0, 3]), (-1, w[3, 0], y[0, 1]), (-1, w[0, 0], y[1, 3])],
                 (1, 1): [(1, w[0, 0], y[2, 3]), (-1, w[2, 0], y[0, 3]), (1, w[3, 0], y[0, 2])],
                 (0, 1): [(1, w[2, 0], y[1, 3]), (-1, w[3, 0], y[1, 2]), (-1, w[1, 0], y[2, 3])]}
        for k, terms in first.items():   # Type z00 .. z31: rounded to the matrix's type
            z[k] = self._narrow(cof(terms), t, loc)
        det = self._add(self._add(self._add(self._mul(x[3, 0], z[3, 0], loc),
                                            self._mul(x[2, 0], z[2, 0], loc), loc),
                                  self._mul(x[1, 0], z[1, 0], loc), loc),
                        self._mul(x[0, 0], z[0, 0], loc), loc)
        return z, det

    def _determinant(self, e, hint):
        (m,) = (self.lower_expr(a) for a in e.args)
        return (self.determinant_of(m, e.args[0].type.rows, e.loc),)

    def _inverse4(self, m, loc):
        """Warp's 4x4 inverse: cofactor z_rc / det at (c, r), in double, rounded
        to the matrix's type, when |det| > 0 (NaN: the zero matrix), else zero."""
        t = m[0].type
        z, det = self.cofactors4(m, loc)
        wdet = self._wide(det, loc)
        zero_w = self.const(0.0, F64)
        nonzero = self.cmp("gt", self.unop("abs", wdet, loc), zero_w, loc)
        rcp = self.binop("div", self.const(1.0, F64), wdet, loc)
        zero = self.const(0, t)
        out = []
        for r in range(4):
            for c in range(4):
                v = self._narrow(self._mul(self._wide(z[c, r], loc), rcp, loc), t, loc)
                out.append(self.select(nonzero, v, zero, loc))
        return tuple(out)

    def _inverse(self, e, hint):
        """Warp: the adjugate times 1/det, or the zero matrix when det == 0
        (2x2: unless det > 0 or det < 0, so NaN gives zero; 3x3: when
        det == 0, so NaN gives the NaN-filled product; 4x4: `_inverse4`)."""
        (m,) = (self.lower_expr(a) for a in e.args)
        n, loc = e.type.rows, e.loc
        if n == 4:
            return self._inverse4(m, loc)
        t = m[0].type
        det = self.determinant_of(m, n, loc)
        zero = self.const(0, t)
        if n == 2:
            adj = (m[3], self.unop("neg", m[1], loc), self.unop("neg", m[2], loc), m[0])
            nonzero = None
        else:
            def minor(a, b, c, d):
                return self._sub(self._mul(m[a], m[b], loc), self._mul(m[c], m[d], loc), loc)
            adj = (minor(4, 8, 5, 7), minor(2, 7, 1, 8), minor(1, 5, 2, 4),
                   minor(5, 6, 3, 8), minor(0, 8, 2, 6), minor(2, 3, 0, 5),
                   minor(3, 7, 4, 6), minor(1, 6, 0, 7), minor(0, 4, 1, 3))
            nonzero = self.cmp("ne", det, zero, loc)
        rcp = self.binop("div", self.const(1, t), det, loc)
        scaled = [self._mul(x, rcp, loc) for x in adj]
        if nonzero is not None:
            return tuple(self.select(nonzero, x, zero, loc) for x in scaled)
        pos, neg = self.cmp("gt", det, zero, loc), self.cmp("lt", det, zero, loc)
        return tuple(self.select(pos, x, self.select(neg, x, zero, loc), loc) for x in scaled)

    def _outer(self, e, hint):
        a, b = (self.lower_expr(x) for x in e.args)
        return tuple(self._mul(x, y, e.loc) for x in a for y in b)

    def _diag(self, e, hint):
        (v,) = (self.lower_expr(a) for a in e.args)
        zero = self.const(0, v[0].type)
        return tuple(v[r] if r == c else zero for r in range(len(v)) for c in range(len(v)))

    def _get_diag(self, e, hint):
        (m,) = (self.lower_expr(a) for a in e.args)
        n = e.type.length
        return tuple(m[k * n + k] for k in range(n))

    def _skew(self, e, hint):
        (a,) = (self.lower_expr(x) for x in e.args)
        zero = self.const(0, a[0].type)

        def neg(x):
            return self.unop("neg", x, e.loc)

        return (zero, neg(a[2]), a[1], a[2], zero, neg(a[0]), neg(a[1]), a[0], zero)

    def _ddot(self, e, hint):
        a, b = (self.lower_expr(x) for x in e.args)
        return (self.dot(a, b, e.loc, hint),)


RIGID_LOWERING = {
    "quat_rotate": RigidLowering._rot, "quat_rotate_inv": RigidLowering._rot,
    "quat_inverse": RigidLowering._quat_inverse,
    "quat_from_axis_angle": RigidLowering._quat_from_axis_angle,
    "quat_to_matrix": RigidLowering._quat_to_matrix,
    "transform_point": RigidLowering._transform_apply,
    "transform_vector": RigidLowering._transform_apply,
    "transform_multiply": RigidLowering._transform_multiply,
    "transform_inverse": RigidLowering._transform_inverse,
    "spatial_cross": RigidLowering._spatial_cross,
    "spatial_cross_dual": RigidLowering._spatial_cross,
    "spatial_adjoint": RigidLowering._spatial_adjoint,
    "determinant": RigidLowering._determinant, "inverse": RigidLowering._inverse,
    "outer": RigidLowering._outer, "diag": RigidLowering._diag,
    "get_diag": RigidLowering._get_diag, "skew": RigidLowering._skew,
    "ddot": RigidLowering._ddot,
}
