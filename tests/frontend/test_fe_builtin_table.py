"""The builtin table (verikern/frontend/builtins/table.py) is complete: every
builtin in it is typed and lowered (a kernel calling it compiles, and its MIR
holds exactly the ops the entry lists), every MIR op an entry lists is in
every backend's and encoder's dispatch table, and nothing outside the table
lists builtins. A deliberately incomplete entry is reported by each check."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from verikern import lang
from verikern.frontend import compile_source
from verikern.frontend.builtins import rules as R
from verikern.frontend.builtins import table as T
from verikern.frontend.builtins.operators import BINOP_NAMES, BINOP_SYMBOLS, COMPARE_NAMES
from verikern.frontend.lower.builtin_calls import BUILTIN_LOWERING
from verikern.mir import nodes as M
from verikern.hir.printer import _SYM as HIR_SYMBOLS
from verikern.mir import ops as O
from mir.test_op_table import BACKEND_TABLES

ROOT = Path(__file__).resolve().parent.parent.parent
FRONTEND = ROOT / "verikern" / "frontend"

SIGNATURE = '''import warp as wp


@wp.kernel
def k(f: wp.array(dtype=float), n: wp.array(dtype=int), v: wp.array(dtype=wp.vec3),
      q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat33), u: wp.array(dtype=wp.uint32)):
'''
PRELUDE = '''    i = wp.tid()
    x = f[i]
    j = n[i]
    w = v[i]
    r = q[i]
    a = m[i]
    c = j > 0
'''
#: builtin -> a statement calling it (in the kernel above); one for every entry
SAMPLES = {
    "tid": "n[i] = wp.tid()", "thread_idx": "n[i] = wp.thread_idx()",
    "block_idx": "n[i] = wp.block_idx()", "block_dim": "n[i] = wp.block_dim()",
    "grid_dim": "n[i] = wp.grid_dim()", "launch_dim": "n[i] = wp.launch_dim()",
    "min": "f[i] = min(x, 1.0)", "max": "f[i] = wp.max(a=x, b=1.0)",
    "clamp": "f[i] = wp.clamp(x, low=0.0, high=1.0)", "abs": "n[i] = abs(j)",
    **{g: f"f[i] = wp.{g}(x)" for g in ("floor", "ceil", "sqrt", "sqrt_precise", "sin", "cos",
                                       "tan", "exp", "log", "erf", "erfc")},
    "pow": "f[i] = wp.pow(x, 2.0)", "atan2": "f[i] = wp.atan2(y=x, x=1.0)",
    "len": "n[i] = len(w)", "where": "f[i] = wp.where(c, x, 0.0)",
    "lower_bound": "n[i] = wp.lower_bound(f, x) + wp.lower_bound(n, 1, j, 2)",
    "select": "f[i] = wp.select(c, x, 0.0)", "dot": "f[i] = wp.dot(w, w)",
    "cross": "v[i] = wp.cross(w, w)", "length": "f[i] = wp.length(w)",
    "length_sq": "f[i] = wp.length_sq(w)", "normalize": "v[i] = wp.normalize(w)",
    "cw_mul": "v[i] = wp.cw_mul(w, w)", "cw_div": "v[i] = wp.cw_div(w, w)",
    "quat_rotate": "v[i] = wp.quat_rotate(r, w)", "quat_inverse": "q[i] = wp.quat_inverse(r)",
    "quat_identity": "q[i] = wp.quat_identity()",
    "quat_from_axis_angle": "q[i] = wp.quat_from_axis_angle(w, x)",
    "transpose": "m[i] = wp.transpose(a)", "mul": "v[i] = wp.mul(a, w)",
    "matrix_from_rows": "m[i] = wp.matrix_from_rows(w, w, w)",
    "matrix_from_cols": "m[i] = wp.matrix_from_cols(w, w, w)",
    "construct": "v[i] = wp.vec3(x, x, x)", "construct_rows": "m[i] = wp.mat33(w, w, w)",
    "convert": "v[i] = wp.vec3(wp.vec3d(w))",
    **{f"atomic_{op}": f"n[i] = wp.atomic_{op}(n, 0, j{', j' if op == 'cas' else ''})"
       for op in O.ATOMIC},
    "trace": "f[i] = wp.trace(a)", "isnan": "n[i] = int(wp.isnan(x))",
    "isinf": "n[i] = int(wp.isinf(x))", "isfinite": "n[i] = int(wp.isfinite(x))",
    "lerp": "f[i] = wp.lerp(x, 1.0, 0.5)", "mod": "n[i] = wp.mod(j, 3)",
    "identity": "m[i] = wp.identity(n=3, dtype=float)",
    "quat_rpy": "q[i] = wp.quat_rpy(x, x, x)", "smoothstep": "f[i] = wp.smoothstep(0.0, 1.0, x)",
    "sign": "f[i] = wp.sign(x)", "static": "n[i] = wp.static(2 + 3)",
    "radians": "f[i] = wp.radians(x)", "degrees": "f[i] = wp.degrees(x)",
    "quat_rotate_inv": "v[i] = wp.quat_rotate_inv(r, w)",
    "quat_to_matrix": "m[i] = wp.quat_to_matrix(r)",
    "transform_identity": "t = wp.transform_identity()\n    q[i] = t.q",
    "transform_point": "v[i] = wp.transform_point(wp.transform(w, r), w)",
    "transform_vector": "v[i] = wp.transform_vector(xform=wp.transform(w, r), vec=w)",
    "transform_multiply": "t = wp.transform_multiply(wp.transform(w, r), wp.transform(w, r))"
                          "\n    q[i] = t.q",
    "transform_inverse": "t = wp.transform_inverse(wp.transform(w, r))\n    q[i] = t.q",
    "transform_get_translation": "v[i] = wp.transform_get_translation(wp.transform(w, r))",
    "transform_get_rotation": "q[i] = wp.transform_get_rotation(wp.transform(w, r))",
    "spatial_top": "v[i] = wp.spatial_top(wp.spatial_vector(w, w))",
    "spatial_bottom": "v[i] = wp.spatial_bottom(wp.spatial_vector(w, w))",
    "spatial_dot": "f[i] = wp.spatial_dot(wp.spatial_vector(w, w), wp.spatial_vector(w, w))",
    "spatial_cross": "s6 = wp.spatial_cross(wp.spatial_vector(w, w), wp.spatial_vector(w, w))"
                     "\n    f[i] = s6[0]",
    "spatial_cross_dual": "s6 = wp.spatial_cross_dual(wp.spatial_vector(w, w), "
                          "wp.spatial_vector(w, w))\n    f[i] = s6[0]",
    "spatial_adjoint": "s66 = wp.spatial_adjoint(a, a)\n    f[i] = s66[0, 0]",
    "inverse": "m[i] = wp.inverse(a)\n    b2 = wp.inverse(wp.mat22(x, x, x, x))\n"
               "    f[i] = b2[0, 0]\n    b4 = wp.inverse(wp.identity(n=4, dtype=float) * x)\n"
               "    f[i] = b4[1, 1]",
    "determinant": "f[i] = wp.determinant(a)",
    "outer": "m[i] = wp.outer(w, w)", "diag": "m[i] = wp.diag(w)",
    "get_diag": "v[i] = wp.get_diag(a)", "skew": "m[i] = wp.skew(w)",
    "ddot": "f[i] = wp.ddot(a, a)",
    "rand_init": "u[i] = wp.rand_init(seed=7, offset=j)",
    "randi": "s = wp.rand_init(7)\n    n[i] = wp.randi(s, 0, 10)",
    "randu": "s = wp.rand_init(7)\n    u[i] = wp.randu(s)",
    "randf": "s = wp.rand_init(7)\n    f[i] = wp.randf(state=s, min=0.0, max=1.0)",
    "randn": "s = wp.rand_init(7)\n    f[i] = wp.randn(state=s)",
    "sync_threads": "wp.sync_threads()", "block_until": "wp.block_until(True)",
    "requires": "wp.requires(n.shape[0] > 1)",
    "invariant": "for t in range(3):\n        wp.invariant(t >= 0)\n        f[i] = x",
    "expect_eq": "wp.expect_eq(x, x)", "expect_neq": "wp.expect_neq(x, x + 1.0)",
    "expect_near": "wp.expect_near(x, x, tolerance=0.5)",
    "all_in_range": "wp.requires(wp.all_in_range(n, 0, 10))",
    "all_distinct": "wp.requires(wp.all_distinct(n))",
    "all_sorted": "wp.requires(wp.all_sorted(n))",
    "noise": "f[i] = wp.noise(u[i], x)", "pnoise": "f[i] = wp.pnoise(u[i], x, 2)",
    "curlnoise": "v[i] = wp.curlnoise(u[i], x)",
}
BASELINE = "pass"


def kernel_source(stmt: str) -> str:
    """The probe kernel running `stmt` (a contract goes first, as it must)."""
    if stmt.startswith("wp.requires"):
        return SIGNATURE + "    " + stmt + "\n" + PRELUDE
    return SIGNATURE + PRELUDE + "    " + stmt + "\n"


def mir_ops(stmt: str) -> set[tuple[str, str]]:
    """(kind, op) of every BinOp, UnaryOp, Compare and Atomic of the kernel
    running `stmt` (unoptimised MIR); a compile error fails."""
    r = compile_source(kernel_source(stmt), "probe.py", optimize=False)
    assert not r.errors, [e.render() for e in r.errors]
    k = r.kernels[0]
    assert k.error is None, k.error.render()
    kinds = {M.BinOp: "binary", M.UnaryOp: "unary", M.Compare: "compare", M.Atomic: "atomic"}
    return {(kinds[type(ins)], ins.op) for _, ins in k.mir.instructions() if type(ins) in kinds}


def compile_error(stmt: str):
    r = compile_source(kernel_source(stmt), "probe.py")
    errors = list(r.errors) + [k.error for k in r.kernels if k.error is not None]
    return errors[0] if errors else None


def table_problems(builtins, lowering=BUILTIN_LOWERING, backends=BACKEND_TABLES) -> list[str]:
    """What a table of builtins lacks, as sentences: a name twice, an unknown
    typing, a LOWERED entry the lowerer has no entry for (or a lowering entry no
    builtin has), a MIR op unknown to mir.ops or missing from a backend's or
    encoder's dispatch table (on a type class mir.ops allows it)."""
    out = []
    names = [b.name for b in builtins]
    out += [f"{n} is listed twice" for n in sorted({n for n in names if names.count(n) > 1})]
    words = {T.DESUGARED, T.RANDOM, T.STATEMENT, T.ASSERTION, T.CONTRACT, T.INTERNAL, T.REFUSED}
    for b in builtins:
        if not callable(b.typing) and b.typing not in words:
            out.append(f"{b.name} has no typing rule ({b.typing!r})")
        if b.lowering == T.LOWERED and b.name not in lowering:
            out.append(f"{b.name} is lowered but BUILTIN_LOWERING has no entry for it")
        if b.lowering != T.LOWERED and b.name in lowering:
            out.append(f"{b.name} has a BUILTIN_LOWERING entry but is {b.lowering}")
        for kind, op in b.mir_ops:
            if kind == "atomic":
                if op not in O.ATOMIC:
                    out.append(f"{b.name} lowers to atomic {op}, which mir.ops.ATOMIC lacks")
                continue
            info = O.OPS_BY_KIND[kind].get(op)
            if info is None:
                out.append(f"{b.name} lowers to {kind} op {op}, which mir.ops lacks")
                continue
            for table, table_kind, classes, provided in backends:
                if table_kind != kind:
                    continue
                missing = sorted({(op, c) for c in info.types if c in classes} - provided())
                out += [f"{b.name}: {table} lacks {o} on {c}" for o, c in missing]
    out += [f"BUILTIN_LOWERING has {n}, which is no builtin" for n in sorted(set(lowering) - set(names))]
    return out


def test_the_table_is_complete():
    assert table_problems(T.BUILTINS) == []


def test_a_deliberately_incomplete_entry_is_reported(monkeypatch):
    """A new builtin with a new MIR op, given only a table entry: no lowering,
    no backend semantics. Every backend and encoder table of its op's kind is
    named, as is the lowerer; so is a builtin named twice or with no typing."""
    monkeypatch.setitem(O.BINARY, "rotl", O.OpInfo(
        "rotl", "binary", frozenset({O.INT_CLASS}), "rotate left", int_ref=lambda a, b, t: a))
    rotl = T.Builtin("rotl", R.type_pow, T.LOWERED, (("binary", "rotl"),), ("x", "y"))
    problems = table_problems(T.BUILTINS + (rotl,))
    assert problems == [
        "rotl is lowered but BUILTIN_LOWERING has no entry for it",
        "rotl: simulator BINARY_SEMANTICS lacks rotl on int",
        "rotl: SMT INT_BINARY/BOOL_BINARY lacks rotl on int",
        "rotl: LLVM INT_BINARY/BOOL_BINARY/FLOAT_BINARY lacks rotl on int",
        "rotl: C INT_BINARY/BOOL_BINARY/FLOAT_BINARY lacks rotl on int"]
    broken = (T.Builtin("abs", R.type_abs, T.LOWERED, (("unary", "abs"),)),
              T.Builtin("blur", "typed somewhere", T.NONE),
              T.Builtin("spin", R.type_pow, T.ATOMIC_OP, (("atomic", "spin"),)))
    assert table_problems(T.BUILTINS + broken) == [
        "abs is listed twice", "blur has no typing rule ('typed somewhere')",
        "spin lowers to atomic spin, which mir.ops.ATOMIC lacks"]
    assert table_problems(T.BUILTINS, {**BUILTIN_LOWERING, "blur": None}) == [
        "BUILTIN_LOWERING has blur, which is no builtin"]


def test_every_entry_has_a_sample_call():
    assert set(SAMPLES) == set(T.BY_NAME)


LOWERED_HERE = (T.LOWERED, T.ATOMIC_OP, T.FOLDED)


@pytest.mark.parametrize("name", [b.name for b in T.BUILTINS if b.lowering in LOWERED_HERE])
def test_each_builtin_is_typed_and_lowered_to_exactly_its_mir_ops(name):
    """A kernel calling it compiles, and the MIR ops it adds to the kernel
    (beyond those of `pass`) are exactly the entry's `mir_ops`, so the backend
    coverage above covers all it needs."""
    b = T.BY_NAME[name]
    base = mir_ops(BASELINE)
    got = mir_ops(SAMPLES[name])
    assert got - base <= set(b.mir_ops), f"{name} lowers to ops its entry does not list"
    assert set(b.mir_ops) <= got, f"{name}'s entry lists ops its lowering never emits"


@pytest.mark.parametrize("name", [b.name for b in T.BUILTINS
                                  if b.lowering not in LOWERED_HERE and b.typing != T.REFUSED])
def test_each_rewritten_or_statement_builtin_compiles(name):
    """Rewritten into core calls or checked as a statement: a kernel calling it
    compiles (its MIR ops are those of the core language, which every backend
    has: tests/mir/test_op_table.py)."""
    mir_ops(SAMPLES[name])    # asserts that it compiles


@pytest.mark.parametrize("name", sorted(T.NOISE))
def test_refused_builtins_are_located_errors(name):
    e = compile_error(SAMPLES[name])
    assert e is not None and e.rule == "warp-noise"


def test_keywords_follow_warps_parameter_names():
    """A keyword call is typed exactly as the positional one; an unknown keyword
    names Warp's parameters (from the table)."""
    assert mir_ops("f[i] = wp.clamp(x, low=0.0, high=1.0)") == mir_ops("f[i] = wp.clamp(x, 0.0, 1.0)")
    e = compile_error("f[i] = wp.clamp(x, lo=0.0, high=1.0)")
    assert e.rule == "keyword-args" and "x, low, high" in e.message
    e = compile_error("f[i] = wp.sqrt_precise(x=x)")    # Warp gives sqrt_precise no keywords here
    assert e.rule == "keyword-args"


# ------------------------------------------------------- no builtins elsewhere
#: the collections of builtin names outside the table: (file, text on the line
#: or just above) -> why it is no list of builtins
ALLOWED_LISTS = {
    ("lower/builtin_calls.py", "BUILTIN_LOWERING"):
        "the lowering of each builtin, keyed by the table's names (checked above)",
    ("lower/rigid_calls.py", "RIGID_LOWERING"):
        "part of BUILTIN_LOWERING (the rigid-body and matrix builtins)",
    ("builtins/warp.py", 'name in ("isnan"'): "the desugaring's own dispatch",
    ("builtins/warp.py", "_STATIC_CALLS"): "Python's functions wp.static() evaluates",
    ("scan/constants.py", "_MATH_FUNCS"): "Python's math functions of module constants",
    ("scan/constants.py", "numpy.{n}"): "numpy's functions of module constants",
    ("scan/constants.py", "_PY_BUILTINS"): "Python's functions of module constants",
    ("scan/rebinding.py", "_FLOAT_MODULES"): "Python's math functions of module constants",
    ("check/generic_scalars.py", "FLOAT_ONLY"):
        "a property of Warp's overloads, checked against Warp's own table (test_warp_generic_scalars.py)",
}


def builtin_lists(root: Path = FRONTEND) -> list[str]:
    """`file:line` of each dict, set, list or tuple display outside table.py
    with three or more builtin names (as strings) among its keys or elements."""
    names = set(T.BY_NAME)
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "builtins/table.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                items = node.keys
            elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                items = node.elts
            else:
                continue
            hits = [i.value for i in items
                    if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in names]
            if len(hits) >= 3:
                found.append(f"{rel}:{node.lineno}")
    return found


def _allowed(where: str) -> bool:
    path, line = where.split(":")[0], int(where.split(":")[1])
    source = (FRONTEND / path).read_text().splitlines()
    near = source[max(0, line - 3):line]
    return any(p == path and any(text in s for s in near) for p, text in ALLOWED_LISTS)


def test_nothing_outside_the_table_lists_builtins():
    assert [w for w in builtin_lists() if not _allowed(w)] == []


def test_a_builtin_list_outside_the_table_is_found(tmp_path):
    (tmp_path / "check").mkdir()
    (tmp_path / "check" / "probe.py").write_text(
        'X = 1\nUNIFORM = {"block_dim", "grid_dim", "min"}\nPAIRS = ("min", "add")\n')
    assert builtin_lists(tmp_path) == ["check/probe.py:2"]


# ------------------------------------------------------- operator symbols
def test_each_operator_symbol_comes_from_mir_ops_and_parses_back_to_its_op():
    """mir.ops owns the source spelling of each op; Python parses the symbol
    back to the AST operator the checker maps to that op, for every binary and
    comparison operator (an independent check of each symbol)."""
    syms = O.symbols("binary", "compare")
    assert BINOP_NAMES[ast.MatMult] == BINOP_NAMES[ast.Mult] == "mul"    # Warp: `@` is `mul`
    for ast_op, op in BINOP_NAMES.items():
        if ast_op is not ast.MatMult:
            assert type(ast.parse(f"a {syms[op]} b", mode="eval").body.op) is ast_op
    for ast_op, op in COMPARE_NAMES.items():
        assert type(ast.parse(f"a {syms[op]} b", mode="eval").body.ops[0]) is ast_op
    assert set(syms) == set(BINOP_NAMES.values()) | set(COMPARE_NAMES.values())
    assert BINOP_SYMBOLS == O.symbols("binary") and HIR_SYMBOLS == syms


def test_the_language_surface_exposes_only_table_builtins():
    """verikern.lang gives each core builtin a Python stub (`vk.sqrt`, raising
    KernelOnlyError) without importing the frontend; every name it exposes is a
    builtin of the table, typed and lowered there; and every builtin a kernel may
    spell `vk.name(...)` has its stub, so `vk.lerp` exists for editors and type
    checkers and calling it from Python says why it cannot run (the table's
    internal constructors, `len` and the refused noise functions excepted;
    `vk.requires` is a function of its own)."""
    assert set(lang.BUILTIN_NAMES) <= set(T.BY_NAME)
    spelled = {b.name for b in T.BUILTINS if b.typing not in (T.INTERNAL, T.REFUSED, T.STATEMENT)
               and b.python is None}
    # `vk.trace` is the verikern.trace submodule once it is imported: a stub there would
    # depend on import order (kernels still spell vk.trace(m): the frontend reads the source)
    assert spelled - set(lang.BUILTIN_NAMES) == {"trace"}
    assert callable(lang.requires) and {"sync_threads", "block_until", "invariant"} <= set(
        lang.BUILTIN_NAMES)
