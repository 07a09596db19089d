"""The C encoder's op tables (encoders/c/ops.py) against the op table.

- Every table covers exactly the (op, type class) pairs `verikern.mir.ops`
  allows (a new op is reported missing by name).
- Compiled with gcc -Wall -Wextra -Werror -fsanitize=undefined, the C
  expressions of every integer and bool op, comparison and integer cast give
  the reference result (`binary_reference` & co, `ScalarType.wrap`) on edge
  values and random ones, and UBSan reports nothing (no undefined behaviour);
  float ops agree with numpy in float16, float32 and float64 (float16: C's
  `_Float16`, computed in float and rounded once, and the float64 library
  functions rounded once, against numpy's float16 and float64).
"""
from __future__ import annotations

import math
import random
import shutil
import subprocess

import numpy as np
import pytest

from verikern.encoders.c import HEADER_DIR
from verikern.encoders.c import ops as C
from verikern.encoders.c.prelude import prelude
from verikern.mir import ops as T
from verikern.mir.types import BOOL, F16, F32, F64, SCALAR_TYPES

ALL = T.TYPE_CLASSES
INT_TYPES = [t for t in SCALAR_TYPES.values() if t.is_int]

TABLES = [
    ("C INT_BINARY/BOOL_BINARY/FLOAT_BINARY", "binary",
     lambda: {(op, c) for c, tab in (("int", C.INT_BINARY), ("bool", C.BOOL_BINARY),
                                     ("float", C.FLOAT_BINARY)) for op in tab}),
    ("C INT_UNARY/BOOL_UNARY/FLOAT_UNARY", "unary",
     lambda: {(op, c) for c, tab in (("int", C.INT_UNARY), ("bool", C.BOOL_UNARY),
                                     ("float", C.FLOAT_UNARY)) for op in tab}),
    ("C COMPARE", "compare", lambda: {(op, c) for op in C.COMPARE for c in ALL}),
]


def coverage_problems(name, kind, provided) -> list[str]:
    want, have = T.pairs(kind, ALL), provided()
    out = []
    if want - have:
        out.append(f"{name} lacks " + ", ".join(f"{o} on {c}" for o, c in sorted(want - have)))
    if have - want:
        out.append(f"{name} defines " + ", ".join(f"{o} on {c}" for o, c in sorted(have - want)))
    return out


@pytest.mark.parametrize("row", TABLES, ids=[r[0] for r in TABLES])
def test_c_tables_cover_exactly_the_op_table(row):
    assert coverage_problems(*row) == []


def test_a_new_op_is_reported_missing(monkeypatch):
    monkeypatch.setitem(T.BINARY, "rotl", T.OpInfo(
        "rotl", "binary", frozenset({T.INT_CLASS}), "rotate", int_ref=lambda a, b, t: a))
    assert coverage_problems(*TABLES[0]) == [f"{TABLES[0][0]} lacks rotl on int"]


def test_instruction_table_covers_every_class():
    from verikern.encoders.c.emitter import INSTRUCTIONS, TERMINATORS
    from verikern.mir import nodes
    assert set(INSTRUCTIONS) == {c.OPCODE for c in nodes.INSTRUCTION_CLASSES}
    assert set(TERMINATORS) == {c.OPCODE for c in nodes.TERMINATOR_CLASSES}


# ------------------------------------------------------------------ semantics
def _edges(t):
    if t.is_bool:
        return [False, True]
    lo, hi = t.min_value, t.max_value
    return sorted(x for x in {lo, lo + 1, -1 if t.is_signed else 1, 0, 1, 2, 3, 7, t.bits - 1,
                              t.bits, hi - 1, hi, -2 if t.is_signed else hi // 2}
                  if lo <= x <= hi)


def _values(t, rng, n=6):
    edge = _edges(t)
    if t.is_bool:
        return [(a, b) for a in edge for b in edge]
    pairs = rng.sample([(a, b) for a in edge for b in edge], 24)
    pairs += [(rng.randint(t.min_value, t.max_value), rng.randint(t.min_value, t.max_value))
              for _ in range(n)]
    pairs += [(rng.randint(t.min_value, t.max_value), rng.randint(-9, 9)) for _ in range(n)]
    return [(a, t.wrap(b)) for a, b in pairs]


def _run_c(body: str, tmp_path, sanitize=True) -> list[str]:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (apt-get install gcc)")
    src = tmp_path / "ops.c"
    lines = body.splitlines(keepends=True)
    chunks = ["".join(lines[i:i + 400]) for i in range(0, len(lines), 400)]
    funcs = "".join(f"static void part{i}(void) {{\n{c}}}\n" for i, c in enumerate(chunks))
    calls = "".join(f"part{i}();\n" for i in range(len(chunks)))
    src.write_text(prelude() + "#include <stdio.h>\n#include <inttypes.h>\n" + funcs
                   + "int main(void) {\n" + calls + "return 0;\n}\n")
    flags = ["-fsanitize=undefined", "-fno-sanitize-recover=all"] if sanitize else []
    exe = tmp_path / "ops"
    # the replay build: the C library's own functions (the CBMC build leaves
    # ops.UNMODELLED calls unknown)
    proc = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", *flags,
                           "-DVERIKERN_REPLAY", f"-I{HEADER_DIR}",
                           str(src), "-o", str(exe), "-lm"], capture_output=True, text=True)
    if proc.returncode != 0 and sanitize and "sanitize" in proc.stderr:
        return _run_c(body, tmp_path, sanitize=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "runtime error" not in run.stderr, run.stderr[-2000:]
    return run.stdout.splitlines()


def _print(expr: str, t) -> str:
    if t.is_bool:
        return f'printf("%d\\n", (int)({expr}));\n'
    if t.is_signed:
        return f'printf("%" PRId64 "\\n", (int64_t)({expr}));\n'
    return f'printf("%" PRIu64 "\\n", (uint64_t)({expr}));\n'


def test_integer_and_bool_semantics_match_the_reference(tmp_path):
    rng = random.Random(12)
    body, want, what = [], [], []
    for t in INT_TYPES + [BOOL]:
        cls = T.type_class(t)
        for a, b in _values(t, rng):
            ca, cb = C.const(a, t), C.const(b, t)
            for op, info in T.BINARY.items():
                if cls not in info.types:
                    continue
                if info.traps and (b == 0 or T.division_overflows(a, b, t)):
                    continue        # a fault: test_division_defined_is_the_obligations_condition
                body.append(_print(C.binary(op, ca, cb, t), t))
                want.append(int(T.binary_reference(op, a, b, t)))
                what.append(f"{op} {t} {a} {b}")
            for op in T.COMPARE:
                body.append(_print(C.compare(op, ca, cb, t), BOOL))
                want.append(int(T.compare_reference(op, a, b, t)))
                what.append(f"{op} {t} {a} {b}")
            for op, info in T.UNARY.items():
                if cls in info.types:
                    body.append(_print(C.unary(op, ca, t), t))
                    want.append(int(T.unary_reference(op, a, t)))
                    what.append(f"{op} {t} {a}")
            for dst in INT_TYPES + [BOOL]:
                body.append(_print(C.cast(ca, t, dst), dst))
                want.append(int(bool(a)) if dst.is_bool else dst.wrap(int(a)))
                what.append(f"cast {t} {a} -> {dst}")
    got = _run_c("".join(body), tmp_path)
    bad = [f"{w}: C gives {g}, reference {r}" for w, g, r in zip(what, got, want) if int(g) != r]
    assert len(got) == len(want)
    assert not bad, "\n".join(bad[:20])


def test_division_defined_is_the_obligations_condition(tmp_path):
    """`division_defined` holds exactly where the reference does not fault (a
    zero divisor; INT_MIN / -1 on int32/int64), and the division helpers stay
    free of undefined behaviour on the faulting operands (UBSan): the harness
    never traps where the kernel would."""
    body, want, what = [], [], []
    for t in INT_TYPES:
        for a in _edges(t):
            for b in _edges(t):
                ca, cb = C.const(a, t), C.const(b, t)
                body.append(_print(C.division_defined(ca, cb, t), BOOL))
                want.append(int(b != 0 and not T.division_overflows(a, b, t)))
                what.append(f"defined {t} {a} {b}")
                for op in ("div", "floordiv", "mod"):
                    body.append(_print(C.binary(op, ca, cb, t), t))    # total: its value is unused
    got = _run_c("".join(body), tmp_path)
    checks = got[::4]
    assert len(checks) == len(want)
    bad = [f"{w}: C gives {g}, reference {r}" for w, g, r in zip(what, checks, want) if int(g) != r]
    assert not bad, "\n".join(bad[:20])
    assert sum(want) < len(want) and any(w.startswith("defined int32 -2147483648 -1") for w in what)


@pytest.mark.parametrize("t", [F16, F32, F64], ids=str)
def test_float_semantics_match_numpy(t, tmp_path):
    rng = np.random.default_rng(3)
    dt = t.np_dtype
    with np.errstate(over="ignore"):   # 1e30 is inf in float16
        xs = np.concatenate([rng.normal(0, 100, 12), [0.5, -2.5, 3.0, -0.0, 1e30]]).astype(dt)
    ys = np.concatenate([rng.normal(0, 10, 12), [2.0, 2.0, -7.0, 1.0, 3.0]]).astype(dt)
    fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "floordiv": lambda a, b: np.floor(a / b), "mod": np.fmod,
           "min": np.fmin, "max": np.fmax}
    body, want = [], []
    fmt = "%.17g" if t == F64 else "%.9g"
    for x, y in zip(xs, ys):
        for op, fn in fns.items():
            expr = C.binary(op, C.const(float(x), t), C.const(float(y), t), t)
            body.append(f'printf("{fmt}\\n", (double)({expr}));\n')
            with np.errstate(all="ignore"):
                want.append(dt.type(fn(dt.type(x), dt.type(y))))
        for op, fn in (("sqrt", np.sqrt), ("floor", np.floor), ("ceil", np.ceil), ("abs", np.abs)):
            body.append(f'printf("{fmt}\\n", (double)({C.unary(op, C.const(abs(float(x)), t), t)}));\n')
            want.append(dt.type(fn(dt.type(abs(x)))))
    # float->int truncates and saturates, NaN gives 0 (docs/MIR.md), by hand
    for x in [*xs, np.nan, np.inf, -np.inf, -1e30, 2.0 ** 31, -2.0 ** 31 - 1, 255.9, 256.0, -0.99,
              2.0 ** 63, -2.0 ** 63, 2.0 ** 64]:
        for dst in (SCALAR_TYPES["int32"], SCALAR_TYPES["uint8"], SCALAR_TYPES["int64"],
                    SCALAR_TYPES["uint64"]):
            with np.errstate(over="ignore"):
                v = float(dt.type(x))
            body.append(_print(C.cast(C.const(v, t), t, dst), dst))
            want.append(0 if math.isnan(v) else min(max(int(v), dst.min_value), dst.max_value)
                        if math.isfinite(v) else dst.max_value if v > 0 else dst.min_value)
    got = _run_c("".join(body), tmp_path, sanitize=False)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, int):
            assert int(g) == w
        else:
            assert dt.type(float(g)) == w or (np.isnan(w) and g.lower().endswith("nan")), (g, w)


def test_float16_rounds_once_as_numpy_does_over_every_class_of_value(tmp_path):
    """float16 ops on random bit patterns (subnormals, infinities, NaN
    included) give numpy's float16 result bit for bit; the float64 library
    functions are rounded once from float64. `floordiv` rounds the quotient
    to float16 before `floor`: 40256 / 165 is 243.98 in float32 but 244.0 in
    float16, so floor gives 244 (243 if the quotient stayed a float)."""
    rng = np.random.default_rng(16)
    bits = np.concatenate([rng.integers(0, 1 << 16, 160), [0x0001, 0x03FF, 0x7BFF, 0x7C00,
                                                           0xFC00, 0x7E00, 0x8000, 0x3C00]])
    vals = bits.astype(np.uint16).view(np.float16)
    pairs = [(vals[i], vals[-1 - i]) for i in range(len(vals))]
    pairs.append((np.float16(40256.0), np.float16(165.0)))
    fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "floordiv": lambda a, b: np.floor(a / b), "mod": np.fmod,
           "min": np.fmin, "max": np.fmax}
    libm = {"sin": np.sin, "exp": np.exp, "log": np.log}
    body, want = [], []
    for x, y in pairs:
        cx, cy = C.const(float(x), F16), C.const(float(y), F16)
        with np.errstate(all="ignore"):
            for op, fn in fns.items():
                body.append(f'printf("%a\\n", (double)({C.binary(op, cx, cy, F16)}));\n')
                want.append(np.float16(fn(x, y)))
            body.append(f'printf("%a\\n", (double)({C.binary("pow", cx, cy, F16)}));\n')
            want.append(np.float64(x) ** np.float64(y))
            for op, fn in libm.items():
                body.append(f'printf("%a\\n", (double)({C.unary(op, cx, F16)}));\n')
                want.append(fn(np.float64(x)))
            body.append(f'printf("%a\\n", (double)({C.unary("sqrt", cx, F16)}));\n')
            want.append(np.sqrt(x))
    got = _run_c("".join(body), tmp_path, sanitize=False)
    assert len(got) == len(want)
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        c = float(g) if "inf" in g or "nan" in g else float.fromhex(g)
        with np.errstate(all="ignore"):
            w16 = np.float16(w)        # numpy's float64 -> float16 rounds once, to nearest even
        ok = (np.isnan(c) and np.isnan(w16)) or (float(np.float16(c)) == c and np.float16(c) == w16
                                                  and math.copysign(1, c) == math.copysign(1, w16))
        if not ok:
            bad.append(f"#{i}: C {g}, numpy {w16!r}")
    assert not bad, "\n".join(bad[:20])
    per_pair = len(fns) + 1 + len(libm) + 1
    assert float.fromhex(got[-per_pair + list(fns).index("floordiv")]) == 244.0


def test_constants_are_exact(tmp_path):
    vals = [(0.1, F32), (float(np.float32(0.1)), F32), (1e-45, F32), (0.1, F64), (-3.5, F64),
            (float("inf"), F64), (float("-inf"), F32)]
    body = "".join(f'printf("%a\\n", (double)({C.const(v, t)}));\n' for v, t in vals)
    got = _run_c(body, tmp_path, sanitize=False)
    for (v, t), g in zip(vals, got):
        want = float(t.np_dtype.type(v))
        assert float.fromhex(g) == want if "inf" not in g else float(g) == want
