"""Typing rules of docs/LANGUAGE.md section 2: literals and operators (the
names of types are scan/type_names.py's).

Invariant: no implicit int<->float conversion ever happens; an untyped
literal (Python int/float in the source, or constant arithmetic on them)
takes the type its context requires, or int32/float32 on its own, and must be
representable in that type.
"""
from __future__ import annotations

import ast

from verikern.hir import nodes as H
from verikern.mir.ops import symbols
from verikern.hir.types import (
    BOOL, F16, F32, I32, ArrayType, MatrixType, ScalarType, VectorType, is_plain_vector, is_quat,
    is_transform, matrix_type, vector_type,
)

from ..scan.type_names import round_float

BINOP_NAMES = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "shl",
    ast.RShift: "shr", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
    # Warp 1.19 maps `@` to its builtin `mul`, the builtin of `*` (codegen.py
    # `builtin_operators[ast.MatMult] = "mul"`): the same operands, the same result
    ast.MatMult: "mul",
}
BINOP_SYMBOLS = symbols("binary")     # op -> `+`, `//`, ... (mir.ops owns the spelling)
COMPARE_NAMES = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le",
                 ast.Gt: "gt", ast.GtE: "ge"}


def make_literal(checker, value, t, node) -> H.Literal:
    """A Literal of type `t` from an untyped Python value, or a KernelError."""
    loc = checker.loc(node)
    if isinstance(value, bool):
        if t is not None and t != BOOL:
            raise checker.error(f"a bool literal cannot be used as {t}", node,
                                "implicit-conversion", f"convert explicitly, e.g. {t}(...)")
        return H.Literal(bool(value), BOOL, loc)
    if t is None:
        t = I32 if isinstance(value, int) else F32
    if isinstance(t, (VectorType, MatrixType)):
        raise checker.error(f"a scalar literal cannot be used where {t} is needed", node,
                            "vector-scalar-mix",
                            f"build the value explicitly, e.g. vk.{t.name}(...)")
    if isinstance(t, ArrayType):
        raise checker.error("a literal cannot be used as an array", node, "type-mismatch")
    if t == BOOL:
        raise checker.error(f"the number {value!r} cannot be used as a bool", node,
                            "implicit-conversion", "compare explicitly, e.g. `x != 0`")
    if t.is_float:
        v = round_float(float(value), t)
        return H.Literal(v, t, loc)
    if isinstance(value, float):
        raise checker.error(f"float literal {value!r} used where {t} is needed", node,
                            "implicit-conversion",
                            f"write an integer literal, or convert with {t.name}(...)")
    if not t.min_value <= value <= t.max_value:
        raise checker.error(f"literal {value} does not fit in {t}", node, "literal-range",
                            f"{t} holds {t.min_value}..{t.max_value}")
    return H.Literal(int(value), t, loc)


def literal_type_for(op: str, other) -> object:
    """The type an untyped literal operand takes next to an operand of type `other`."""
    if isinstance(other, (VectorType, MatrixType)):
        return other.dtype if op in ("mul", "div") else other
    return other


def _promoted(t: ScalarType) -> ScalarType:
    """C++'s integer promotion: bool and integers narrower than int become int32."""
    return I32 if t.is_bool or (t.is_int and t.bits < 32) else t


def comparison_type(a: ScalarType, b: ScalarType) -> ScalarType | None:
    """The type a comparison of scalars `a` and `b` is computed in, or None
    where Warp cannot build it. Warp compiles `a < b` to C++'s `a < b` whatever
    the operand types (codegen's add_comp), so C++'s usual arithmetic
    conversions decide: an integer against a float converts to the float
    (float32 against float64: float64); two integers are promoted (below 32
    bits to int32) and then meet in the wider type, or in the unsigned one when
    it is at least as wide (int32 against uint32 compares as uint32: -1 < 5u is
    false); int64 holds every uint32. float16 is Warp's C++ struct `half`, whose
    comparisons against any other type are ambiguous: the C++ build fails."""
    if a == b:
        return a
    if F16 in (a, b):
        return None
    if a.is_float or b.is_float:
        return max((t for t in (a, b) if t.is_float), key=lambda t: t.bits)
    pa, pb = _promoted(a), _promoted(b)
    if pa == pb:
        return pa
    if pa.is_signed == pb.is_signed:
        return max(pa, pb, key=lambda t: t.bits)
    unsigned, signed = (pb, pa) if pa.is_signed else (pa, pb)
    return unsigned if unsigned.bits >= signed.bits else signed


def check_binary_types(checker, op: str, lhs: H.Expr, rhs: H.Expr, node):
    """The result type of `lhs op rhs`, or a KernelError naming the rule."""
    lt, rt = lhs.type, rhs.type
    sym = BINOP_SYMBOLS[op]
    if isinstance(lt, ArrayType) or isinstance(rt, ArrayType):
        raise checker.error(f"`{sym}` on an array", node, "array-arith",
                            "index the array to get an element, e.g. a[i]")
    lvec = isinstance(lt, (VectorType, MatrixType))
    rvec = isinstance(rt, (VectorType, MatrixType))
    if lvec or rvec:
        return _vector_binary_type(checker, op, lt, rt, node)
    # check_expr refuses tuples (unless unpacked) and statement-only builtins
    assert isinstance(lt, ScalarType) and isinstance(rt, ScalarType), (lt, rt)
    if lt != rt:
        if (lt.is_float and not rt.is_float) or (rt.is_float and not lt.is_float):
            rule, hint = "implicit-conversion", "convert explicitly: float(i), int(x) or vk.float32(...)"
        else:
            rule, hint = "type-mismatch", f"convert one side, e.g. {lt.name}(...)"
        raise checker.error(f"`{sym}` mixes {lt} and {rt}", node, rule, hint)
    if lt == BOOL and op not in ("and", "or", "xor"):
        raise checker.error(f"`{sym}` on bool values", node, "bool-arith",
                            "convert with int(...) first")
    if op == "pow" and not lt.is_float:
        raise checker.error("`**` needs float operands", node, "int-pow",
                            "use float operands, or multiply")
    if op in ("shl", "shr", "and", "or", "xor") and lt.is_float:
        raise checker.error(f"`{sym}` needs integer operands, got {lt}", node, "float-bitwise",
                            "bitwise operators work on ints only")
    if op in ("shl", "shr") and lt == BOOL:
        raise checker.error(f"`{sym}` needs integer operands", node, "bool-arith")
    return lt


def is_integer_vector_or_matrix(t) -> bool:
    """A plain vector or a matrix of integer components: Warp 1.19's bitwise
    operators and `~` take them, componentwise (verikern does not model them)."""
    return (is_plain_vector(t) or isinstance(t, MatrixType)) and t.dtype.kind in ("int", "uint")


def _vector_binary_type(checker, op, lt, rt, node):
    sym = BINOP_SYMBOLS[op]
    if op in ("add", "sub"):
        if lt == rt:
            return lt
    elif op == "mul":
        if isinstance(lt, (VectorType, MatrixType)) and rt == lt.dtype and not is_quat(lt):
            return lt
        if isinstance(rt, (VectorType, MatrixType)) and lt == rt.dtype and not is_quat(rt):
            return rt
        if isinstance(lt, MatrixType) and is_plain_vector(rt) \
                and lt.cols == rt.length and lt.dtype == rt.dtype:
            return vector_type(lt.rows, lt.dtype)
        if is_plain_vector(lt) and isinstance(rt, MatrixType) \
                and lt.length == rt.rows and lt.dtype == rt.dtype:   # row vector times matrix
            return vector_type(rt.cols, lt.dtype)
        if isinstance(lt, MatrixType) and isinstance(rt, MatrixType) and lt.cols == rt.rows \
                and lt.dtype == rt.dtype and lt.rows == rt.cols:
            return matrix_type(lt.rows, rt.cols, lt.dtype)
        if (is_quat(lt) or is_transform(lt)) and lt == rt:   # Hamilton product, composition
            return lt
        if is_quat(lt) and rt == lt.dtype:
            return lt
        if is_quat(rt) and lt == rt.dtype:
            return rt
    elif op == "div" and not is_transform(lt) and not is_transform(rt):   # Warp: no div
        if isinstance(lt, (VectorType, MatrixType)) and rt == lt.dtype:
            return lt
        if isinstance(rt, (VectorType, MatrixType)) and lt == rt.dtype:
            return rt   # Warp: the scalar divided by each component
    warp_builds = (op == "mod" and is_plain_vector(lt)) or \
        (op in ("shl", "shr", "and", "or", "xor") and is_integer_vector_or_matrix(lt))
    if lt == rt and warp_builds:
        # Warp 1.19 builds these (componentwise); a rule outside the type rules, so a
        # generic kernel's typing that needs one is an error, never a typing Warp refuses
        raise checker.error(f"`{sym}` of two {lt} values (componentwise in Warp) is not "
                            "modelled by verikern yet", node, "unsupported-vector-op",
                            "apply it to each component, e.g. vk.vec3i(a[0] & b[0], ...)")
    hint = ("vector and scalar operands cannot be mixed in + and -; "
            "build a vector, e.g. vk.vec2(s, s)")
    if op == "mul" and isinstance(lt, VectorType) and lt == rt:
        hint = "use vk.dot(a, b) or vk.cw_mul(a, b)"
    raise checker.error(f"`{sym}` is not defined for {lt} and {rt}", node,
                        "vector-scalar-mix" if (lt == F32 or rt == F32 or
                                                isinstance(lt, ScalarType) or
                                                isinstance(rt, ScalarType)) else "type-mismatch",
                        hint)
