"""The one table of verikern's builtins: every builtin a kernel may call is an
entry of BUILTINS, and every per-builtin fact the frontend uses is read from
it (docs/LANGUAGE.md section 4).

An entry gives, in one place:
- `name`: verikern's name (`vk.<name>`, the key of every per-builtin table);
  `python`: the bare Python spelling that means it (`min`, `abs`, `len`), if
  any; Warp spells every builtin as verikern does (`wp.<name>`);
- `warp_params`: Warp 1.19's parameter names, so a call may pass keywords
  (None: keywords are refused);
- `typing`: how a call is typed: a typing rule `(chk, node, name, args,
  expected, loc) -> HIR` (rules.py), or the word for who types it instead
  (`DESUGARED`: warp.py rewrites the call into core calls first; `RANDOM`:
  rand.py rewrites the statement; `STATEMENT`, `ASSERTION` (Warp's test
  assertions, checked as asserts), `CONTRACT`: the statement checker;
  `INTERNAL`: made by the checker for a constructor; `REFUSED`);
- `lowering`: how it reaches MIR: `LOWERED` (the lowerer's BUILTIN_LOWERING
  entry of the same name), `ATOMIC_OP` (an Atomic instruction; its op is the
  entry's `("atomic", op)`), `FOLDED` (the typing rule already built other
  HIR), or `NONE` because it is rewritten (`DESUGARED`, `RANDOM`), a
  statement or refused;
- `mir_ops`: the MIR ops (`(kind, op)` of verikern.mir.ops) its lowering
  emits, which every backend and encoder must have;
- `uniform`: with uniform arguments its value is the same in every thread
  (it may appear in a contract's uniform condition);
- `of_literals`: a call on literals only is itself an untyped literal
  expression, typed by its context (`min(1, 2.5)`).

Invariants (tests/frontend/test_fe_builtin_table.py): names are unique; the
lowerer has an entry exactly for the LOWERED builtins; a kernel calling any
builtin compiles, and one calling a LOWERED, ATOMIC_OP or FOLDED builtin
holds exactly the MIR ops its entry lists; each such op is in mir.ops and in
every backend's and encoder's dispatch table (atomics: mir.ops.ATOMIC). No
other frontend module lists builtins; verikern.lang exposes only these.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, Union

from verikern.mir.ops import ATOMIC

from . import rules as R
from . import rules_rigid as G
from .type_ctors import check_matrix_from_vectors
from .search import type_lower_bound

# who types a builtin that has no typing rule of its own
DESUGARED, RANDOM, STATEMENT, ASSERTION, CONTRACT, INTERNAL, REFUSED = (
    "desugared", "random", "statement", "assertion", "contract", "internal", "refused")
# how a builtin reaches MIR
LOWERED, ATOMIC_OP, FOLDED, NONE = "lowered", "atomic", "folded", "none"

Typing = Union[Callable, str]


@dataclass(frozen=True)
class Builtin:
    """One builtin (see the module docstring for each field)."""

    name: str
    typing: Typing
    lowering: str
    mir_ops: tuple[tuple[str, str], ...] = ()
    warp_params: tuple[str, ...] | None = None
    uniform: bool = False
    python: str | None = None
    of_literals: bool = False

    @property
    def has_rule(self) -> bool:
        return callable(self.typing)


def _unary(op: str) -> tuple[tuple[str, str], ...]:
    return (("unary", op),)


def _binary(*ops: str) -> tuple[tuple[str, str], ...]:
    return tuple(("binary", op) for op in ops)


_X = ("x",)
_AB = ("a", "b")
_A = ("a",)
# the float functions whose lowering is the MIR unary op of the same name
_FLOAT_FUNCTIONS = ("floor", "ceil", "sqrt", "sqrt_precise", "sin", "cos", "tan", "exp", "log",
                    "erf", "erfc")
_NO_KEYWORDS = ("sqrt_precise",)
# the vector arithmetic of dot products and norms
_DOT = _binary("mul", "add")
# Warp's quat_rotate: products and sums of the quat's and the vector's components
_QROT = _binary("mul", "add", "sub")

BUILTINS: tuple[Builtin, ...] = (
    # ---- the launch geometry
    Builtin("tid", R.type_tid, LOWERED),
    Builtin("thread_idx", R.type_geometry, LOWERED),
    Builtin("block_idx", R.type_geometry, LOWERED),
    Builtin("block_dim", R.type_geometry, LOWERED, uniform=True),
    Builtin("grid_dim", R.type_geometry, LOWERED, uniform=True),
    Builtin("launch_dim", R.type_launch_dim, LOWERED, uniform=True),
    # ---- scalar arithmetic
    Builtin("min", R.type_minmax, LOWERED, _binary("min"), _AB, uniform=True, python="min",
            of_literals=True),
    Builtin("max", R.type_minmax, LOWERED, _binary("max"), _AB, uniform=True, python="max",
            of_literals=True),
    Builtin("clamp", R.type_clamp, LOWERED, _binary("min", "max"), ("x", "low", "high"),
            uniform=True, of_literals=True),
    Builtin("abs", R.type_abs, LOWERED, _unary("abs"), _X, uniform=True, python="abs",
            of_literals=True),
    *(Builtin(f, R.type_float_unary, LOWERED, _unary(f), None if f in _NO_KEYWORDS else _X)
      for f in _FLOAT_FUNCTIONS),
    Builtin("pow", R.type_pow, LOWERED, _binary("pow"), ("x", "y"), python="pow"),
    Builtin("atan2", R.type_pow, LOWERED, _binary("atan2"), ("y", "x")),
    Builtin("len", R.type_len, FOLDED, python="len"),
    # Warp's binary search (lower/search_calls.py lowers it as Warp's loop)
    Builtin("lower_bound", type_lower_bound, LOWERED,
            _binary("sub", "add", "div", "and", "or")
            + (("compare", "lt"), ("compare", "le"), ("compare", "gt"))),
    Builtin("where", R.type_where, LOWERED, (), ("cond", "value_if_true", "value_if_false")),
    Builtin("select", R.type_where, LOWERED, (), ("cond", "value_if_false", "value_if_true")),
    # ---- vectors, matrices and quaternions
    Builtin("dot", R.type_dot, LOWERED, _DOT, _AB),
    Builtin("cross", R.type_cross, LOWERED, _binary("mul", "sub"), _AB),
    Builtin("length", R.type_length, LOWERED, _DOT + _unary("sqrt"), _A),
    Builtin("length_sq", R.type_length, LOWERED, _DOT, _A),
    Builtin("normalize", R.type_normalize, LOWERED,
            _DOT + _unary("sqrt") + _binary("div") + (("compare", "gt"),), _A),
    Builtin("cw_mul", R.type_cw_mul, LOWERED, _binary("mul"), _AB),
    Builtin("cw_div", R.type_cw_mul, LOWERED, _binary("div"), _AB),
    # quaternions, transforms, spatial vectors and matrix algebra (rules_rigid.py)
    Builtin("quat_rotate", G.type_quat_vec3, LOWERED, _QROT, ("quat", "vec")),
    Builtin("quat_rotate_inv", G.type_quat_vec3, LOWERED, _QROT, ("quat", "vec")),
    Builtin("quat_inverse", G.type_quat_unary, LOWERED, _unary("neg"), ("quat",)),
    Builtin("quat_identity", G.type_quat_identity, FOLDED, (), ("dtype",)),
    Builtin("quat_from_axis_angle", G.type_quat_from_axis_angle, LOWERED,
            _binary("mul") + _unary("sin") + _unary("cos"), ("axis", "angle")),
    Builtin("quat_to_matrix", G.type_quat_unary, LOWERED, _QROT, ("quat",)),
    Builtin("transform_identity", G.type_transform_identity, FOLDED, (), ("dtype",)),
    Builtin("transform_point", G.type_transform_apply, LOWERED, _QROT, ("xform", "point")),
    Builtin("transform_vector", G.type_transform_apply, LOWERED, _QROT, ("xform", "vec")),
    Builtin("transform_multiply", G.type_transform_multiply, LOWERED, _QROT, _AB),
    Builtin("transform_inverse", G.type_transform_unary, LOWERED, _QROT + _unary("neg"),
            ("xform",)),
    Builtin("transform_get_translation", G.type_transform_unary, FOLDED, (), ("xform",)),
    Builtin("transform_get_rotation", G.type_transform_unary, FOLDED, (), ("xform",)),
    Builtin("spatial_top", G.type_spatial_half, FOLDED, (), ("svec",)),
    Builtin("spatial_bottom", G.type_spatial_half, FOLDED, (), ("svec",)),
    Builtin("spatial_dot", G.type_spatial_pair, FOLDED, _DOT, _AB),
    Builtin("spatial_cross", G.type_spatial_pair, LOWERED, _binary("mul", "sub", "add"), _AB),
    Builtin("spatial_cross_dual", G.type_spatial_pair, LOWERED, _binary("mul", "sub", "add"),
            _AB),
    Builtin("spatial_adjoint", G.type_spatial_adjoint, LOWERED, (), ("r", "s")),
    Builtin("inverse", G.type_inverse, LOWERED,
            _binary("mul", "sub", "add", "div") + _unary("neg") + _unary("abs")
            + (("compare", "gt"), ("compare", "lt"), ("compare", "ne")), _A),
    Builtin("determinant", G.type_inverse, LOWERED, _binary("mul", "sub", "add"), _A),
    Builtin("outer", G.type_outer, LOWERED, _binary("mul"), _AB),
    Builtin("diag", G.type_diag, LOWERED, (), ("vec",)),
    Builtin("get_diag", G.type_diag, LOWERED, (), ("mat",)),
    Builtin("skew", G.type_diag, LOWERED, _unary("neg"), ("vec",)),
    Builtin("ddot", G.type_ddot, LOWERED, _binary("mul", "add"), _AB),
    Builtin("identity", G.type_identity, FOLDED, (), ("n", "dtype")),
    Builtin("transpose", R.type_transpose, LOWERED, (), _A),
    Builtin("mul", R.type_mul, FOLDED),
    Builtin("matrix_from_rows", check_matrix_from_vectors, LOWERED),
    Builtin("matrix_from_cols", check_matrix_from_vectors, LOWERED),
    # ---- made by the checker for a vector/matrix constructor or conversion
    Builtin("construct", INTERNAL, LOWERED),
    Builtin("construct_rows", INTERNAL, LOWERED),
    Builtin("convert", INTERNAL, LOWERED),
    # ---- atomics: the Atomic op of the same name (mir.ops.ATOMIC)
    *(Builtin(f"atomic_{op}", partial(R.type_atomic, op), ATOMIC_OP, (("atomic", op),))
      for op in ATOMIC),
    # ---- Warp builtins rewritten into core calls (warp.py)
    Builtin("trace", DESUGARED, NONE, (), _A),
    Builtin("isnan", DESUGARED, NONE, (), _A),
    Builtin("isinf", DESUGARED, NONE, (), _A),
    Builtin("isfinite", DESUGARED, NONE, (), _A),
    Builtin("lerp", DESUGARED, NONE, (), ("a", "b", "t")),
    Builtin("mod", DESUGARED, NONE, (), _AB),
    Builtin("quat_rpy", DESUGARED, NONE, (), ("roll", "pitch", "yaw")),
    Builtin("smoothstep", DESUGARED, NONE, (), ("a", "b", "x")),
    Builtin("sign", DESUGARED, NONE, (), _X),
    Builtin("static", DESUGARED, NONE, (), ("expr",)),
    Builtin("radians", DESUGARED, NONE, (), _X),
    Builtin("degrees", DESUGARED, NONE, (), _X),
    # ---- random numbers: rand.py rewrites the statement
    Builtin("rand_init", RANDOM, NONE, (), ("seed", "offset")),
    *(Builtin(r, RANDOM, NONE, (), ("state", "min", "max")) for r in ("randi", "randu", "randf")),
    Builtin("randn", RANDOM, NONE, (), ("state",)),
    # ---- statements (the statement checker); Warp's test assertions become asserts
    Builtin("sync_threads", STATEMENT, NONE),
    Builtin("block_until", STATEMENT, NONE),
    Builtin("requires", STATEMENT, NONE),
    Builtin("invariant", STATEMENT, NONE),
    Builtin("expect_eq", ASSERTION, NONE, (), _AB),
    Builtin("expect_neq", ASSERTION, NONE, (), _AB),
    Builtin("expect_near", ASSERTION, NONE, (), ("a", "b", "tolerance")),
    # ---- only inside vk.requires(...)
    Builtin("all_in_range", CONTRACT, NONE),
    Builtin("all_distinct", CONTRACT, NONE),
    Builtin("all_sorted", CONTRACT, NONE),
    # ---- Warp's Perlin noise: values Warp leaves unspecified ("may differ between
    # CPU and CUDA or change between Warp versions"), so refused
    Builtin("noise", REFUSED, NONE),
    Builtin("pnoise", REFUSED, NONE),
    Builtin("curlnoise", REFUSED, NONE),
)

BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}

#: Warp's builtin families that docs/LANGUAGE.md section 2 leaves outside the language:
#: name prefix -> the construct a located error names
OUTSIDE_LANGUAGE: tuple[tuple[str, str], ...] = (
    ("tile", "tiles"), ("mesh_", "meshes and mesh queries"), ("volume_", "volumes"),
    ("hash_grid_", "hash grids"), ("bvh_", "BVH queries"), ("texture", "textures"),
    ("closest_point_edge", "meshes and mesh queries"), ("intersect_tri", "meshes and mesh queries"))


def outside_construct(name: str) -> str | None:
    """The construct outside the language that Warp's builtin `name` belongs to, or None."""
    if name in BY_NAME:
        return None
    return next((what for prefix, what in OUTSIDE_LANGUAGE if name.startswith(prefix)), None)


def _names(pred: Callable[[Builtin], bool]) -> frozenset[str]:
    return frozenset(b.name for b in BUILTINS if pred(b))


#: name -> typing rule of every builtin typed by a rule of its own
BUILTIN_RULES: dict[str, Callable] = {b.name: b.typing for b in BUILTINS if callable(b.typing)}
#: name -> Warp's parameter names, for the builtins that take keywords
WARP_PARAMS: dict[str, tuple[str, ...]] = {b.name: b.warp_params for b in BUILTINS
                                           if b.warp_params is not None}
#: bare Python call name -> builtin (the casts `int`, `float`, `bool` are types)
PYTHON_BUILTINS: dict[str, str] = {
    **{b.python: b.name for b in BUILTINS if b.python is not None},
    "int": "int", "float": "float", "bool": "bool"}
#: atomic builtin -> its MIR Atomic op
ATOMICS: dict[str, str] = {b.name: b.mir_ops[0][1] for b in BUILTINS if b.lowering == ATOMIC_OP}
DESUGARED_BUILTINS = _names(lambda b: b.typing == DESUGARED)
RAND_BUILTINS = _names(lambda b: b.typing == RANDOM)
STATEMENT_BUILTINS = _names(lambda b: b.typing == STATEMENT)
CONTRACT_ONLY = _names(lambda b: b.typing == CONTRACT)
NOISE = _names(lambda b: b.typing == REFUSED)
UNIFORM_BUILTINS = _names(lambda b: b.uniform)
LITERAL_CALLS = _names(lambda b: b.of_literals)
#: the float functions lowered to the MIR unary op of the same name
FLOAT_UNARY = tuple(b.name for b in BUILTINS if b.typing is R.type_float_unary)
#: the launch-geometry builtins lowered to a MIR Special of the same name
GEOMETRY = tuple(b.name for b in BUILTINS if b.typing is R.type_geometry)
