"""The C helper functions every emitted file starts with (`prelude()`).

Invariants: every helper is `static inline` (an unused one draws no warning),
total (defined for every argument value) and free of undefined and
implementation-defined behaviour; the mode macros are the only place where
the CBMC harness and the concrete replay program differ:

- CBMC (default): `VK_CHECK(c, msg)` is `__CPROVER_assert(c, msg)`, never
  followed by an assumption of c (every obligation is decided over every
  execution, also those where an earlier check failed: a failed access is
  skipped and yields an unknown value, `VK_SKIPPED`); `VK_ASSUME` is
  `__CPROVER_assume`;
  inputs come from `nondet_*()` functions (declared, never defined).
- replay (`-DVERIKERN_REPLAY`, with verikern_harness.h on the include path):
  `VK_CHECK` (asserts, invariants, divergence) prints `VERIKERN-FAIL <msg>`
  and exits 1; `VK_SOFT_CHECK` (bounds, div-zero, race) prints it once per
  obligation and the thread finishes its MIR block (the access is skipped,
  the division gives 0, so every check of the statement is seen) and stops
  there; `VK_RACE_CHECK` reports and lets the thread go on (a race does not
  change what the sequential schedule computes); the other threads go on,
  and the program exits 1 at the end;
  `VK_ASSUME` exits 3 (`VERIKERN-INADMISSIBLE`), inputs are read from the
  counterexample JSON named on the command line.
"""
from __future__ import annotations

_SIGNED = (8, 16, 32, 64)


def _wrap_helpers() -> str:
    out = []
    for bits in _SIGNED:
        u = "uint64_t" if bits == 64 else "uint32_t"
        mask = (1 << bits) - 1
        sign = 1 << (bits - 1)
        low = sign - 1
        suf = "ULL" if bits == 64 else "u"
        s = "int64_t" if bits == 64 else "int32_t"
        out.append(
            f"static inline int{bits}_t vk_s{bits}({u} u) {{\n"
            f"    u &= 0x{mask:X}{suf};\n"
            f"    return (u & 0x{sign:X}{suf}) ? (int{bits}_t)(-({s})(~u & 0x{low:X}{suf}) - 1)"
            f" : (int{bits}_t)u;\n}}\n")
    return "".join(out)


def _division_helpers() -> str:
    out = []
    for bits in _SIGNED:
        t, u = f"int{bits}_t", ("uint64_t" if bits == 64 else "uint32_t")
        out.append(
            f"static inline {t} vk_div_i{bits}({t} a, {t} b) {{\n"
            f"    if (b == 0) return 0;\n"
            f"    if (b == -1) return vk_s{bits}(({u})0u - ({u})a);\n"
            f"    return ({t})(a / b);\n}}\n"
            f"static inline {t} vk_mod_i{bits}({t} a, {t} b) {{\n"
            f"    if (b == 0 || b == -1) return 0;\n"
            f"    return ({t})(a % b);\n}}\n"
            f"static inline {t} vk_floordiv_i{bits}({t} a, {t} b) {{\n"
            f"    if (b == 0) return 0;\n"
            f"    if (b == -1) return vk_s{bits}(({u})0u - ({u})a);\n"
            f"    {t} q = ({t})(a / b);\n"
            f"    if (a % b != 0 && ((a < 0) != (b < 0))) q = ({t})(q - 1);\n"
            f"    return q;\n}}\n"
            f"static inline {t} vk_shr_i{bits}({t} a, unsigned s) {{\n"
            f"    return a < 0 ? ({t})~((~a) >> s) : ({t})(a >> s);\n}}\n")
        ut = f"uint{bits}_t"
        out.append(
            f"static inline {ut} vk_div_u{bits}({ut} a, {ut} b) {{ return b == 0 ? 0 : ({ut})(a / b); }}\n"
            f"static inline {ut} vk_floordiv_u{bits}({ut} a, {ut} b) {{ return b == 0 ? 0 : ({ut})(a / b); }}\n"
            f"static inline {ut} vk_mod_u{bits}({ut} a, {ut} b) {{ return b == 0 ? 0 : ({ut})(a % b); }}\n")
    return "".join(out)


def _float_to_int_helpers() -> str:
    """float->int as docs/MIR.md defines it: truncate toward zero, saturate at
    the target's range, NaN gives 0 (LLVM's fptosi/fptoui.sat)."""
    out = []
    for bits in _SIGNED:
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1)
        # x > lo - 1 is exact for bits <= 32; for 64 bits lo itself is the
        # smallest double that truncates into range
        cond_lo = f"x > {float(lo - 1)!r}" if bits <= 32 else f"x >= {float(lo)!r}"
        out.append(
            f"static inline int{bits}_t vk_f2i{bits}(double x) {{\n"
            f"    if (x != x) return 0;\n"
            f"    if (x >= {float(hi)!r}) return INT{bits}_MAX;\n"
            f"    return {cond_lo} ? (int{bits}_t)x : INT{bits}_MIN;\n}}\n")
        out.append(
            f"static inline uint{bits}_t vk_f2u{bits}(double x) {{\n"
            f"    if (x != x || x <= -1.0) return 0u;\n"
            f"    return x < {float(2 ** bits)!r} ? (uint{bits}_t)x : UINT{bits}_MAX;\n}}\n")
    return "".join(out)


_MODES = r"""
/* the largest array in bytes a launch may pass (docs/LANGUAGE.md; --max-array-bytes) */
#ifndef VK_MAX_ARRAY_BYTES
#define VK_MAX_ARRAY_BYTES (1ull << 40)
#endif
/* fits: the exact product n of an array's first dims is at most c (elements
   in VK_MAX_ARRAY_BYTES); is n * x, for a further dim 0 <= x < 2**31, at most
   c too, and computed without wrapping? While c <= 2**48 this needs no 128-bit
   product (the overflow check's, which cost CBMC's solver more than the rest
   of a 3-D kernel, docs/C_ENCODER.md): n < 2**33 cannot wrap; from 2**33 on,
   n * x <= c needs x <= c >> 33, and then n * x <= c * (c >> 33) < 2**64;
   x == 0 makes the count 0 whatever n was. */
static inline bool vk_count_fits(bool fits, uint64_t n, uint64_t x, uint64_t c) {
#if VK_MAX_ARRAY_BYTES <= (1ull << 48)
    return x == 0 || (fits && (n < (1ull << 33) || x <= (c >> 33)) && n * x <= c);
#else
    uint64_t p;
    return x == 0 || (fits && !__builtin_mul_overflow(n, x, &p) && p <= c);
#endif
}
#ifdef VERIKERN_REPLAY
#include "verikern_harness.h"
#define VK_CHECK(c, msg) do { if (!(c)) vk_fail(msg); } while (0)
#define VK_STOP_UNLESS(c) ((void)0)
#define VK_SOFT_CHECK(c, msg) ((c) ? 1 : (vk_report(msg), T->dead = 1, 0))
#define VK_RACE_CHECK(c, msg) ((c) ? 1 : (vk_report(msg), 0))
#define VK_REPORT_CHECK(c, msg) ((c) ? 1 : (vk_report(msg), 0))
#define VK_ASSUME(c, msg) do { if (!(c)) vk_inadmissible(msg); } while (0)
#define VK_IN_INT(nd, T, sec, key, idx) ((T)vk_in_i64(sec, key, idx))
#define VK_IN_UINT(nd, T, sec, key, idx) ((T)vk_in_u64(sec, key, idx))
#define VK_IN_FLOAT(nd, T, sec, key, idx) ((T)vk_in_f64(sec, key, idx))
#define VK_LAUNCH_FIXED(in, value) (in)
#define VK_RACE_KEY(flat, packed) (flat)
#define VK_WRITTEN_LOAD(nd, lvalue) (lvalue)
#define VK_HAVOC_FLOAT(nd, expr) (expr)
#define VK_UNMODELLED(nd, expr) (expr)
#define VK_SKIPPED(nd) 0
#define VK_SMALL_INPUT(x) ((void)0)
#define VK_TRACE_READ(...) ((void)0)
#define VK_FLAT_IN_BOUNDS(c) ((void)0)
#define VK_IMPLIED_BEGIN
#define VK_IMPLIED_END
#else
#define VK_TRACE_READ(...) { __VA_ARGS__; }   /* no do-while: CBMC counts it as a loop */
#define VK_FLAT_IN_BOUNDS(c) __CPROVER_assume(c)
/* CBMC's pointer checks off around an element access of an array of several
   dimensions: after VK_FLAT_IN_BOUNDS (a theorem once every per-dimension
   bounds check holds) they are implied, and their object-size arithmetic on
   a flat index built from products made z3 run out of units (docs/C_ENCODER.md) */
#define VK_IMPLIED_BEGIN _Pragma("CPROVER check push") _Pragma("CPROVER check disable \"pointer\"")
#define VK_IMPLIED_END _Pragma("CPROVER check pop")
/* a check is never assumed afterwards: a later obligation is proved over
   executions where earlier checks failed too (a failed access is skipped and
   reads an unknown value), as the z3 prover decides each obligation alone */
#define VK_CHECK(c, msg) __CPROVER_assert((c), msg)
/* after an assert, an invariant or a division's div-zero check: the thread
   stops where the launch would (a failed assert, a division by zero), as the
   z3 prover assumes every one its thread passed held (docs/PROVER.md, "Prior
   divisions and asserts"); it stops, the other thread goes on */
#define VK_STOP_UNLESS(c) if (!(c)) { T->pc = -3; return -3; } else (void)0
#define VK_SOFT_CHECK(c, msg) (__CPROVER_assert((c), msg), (c))
#define VK_RACE_CHECK(c, msg) (__CPROVER_assert((c), msg), 1)
#define VK_REPORT_CHECK(c, msg) VK_RACE_CHECK(c, msg)
#define VK_ASSUME(c, msg) __CPROVER_assume(c)
#define VK_IN_INT(nd, T, sec, key, idx) ((T)nd())
#define VK_IN_UINT(nd, T, sec, key, idx) ((T)nd())
#define VK_IN_FLOAT(nd, T, sec, key, idx) ((T)nd())
/* a launch value fixed by --dim / --block-dim is a constant, not a nondet
   value assumed equal to it: CBMC's symbolic execution propagates constants,
   so ids, grid size and the divisions by launch dims become arithmetic on
   constants (the replay still reads the counterexample and checks it) */
#define VK_LAUNCH_FIXED(in, value) (value)
/* the race instrumentation's key of an access of a 2-D array: its two
   in-bounds indices packed, not the flat index (emitter.race_key) */
#define VK_RACE_KEY(flat, packed) (packed)
/* two-thread abstraction: an element of an array the kernel writes may have
   been written by any other thread, so its value is unknown */
#define VK_WRITTEN_LOAD(nd, lvalue) (nd())
/* a float that flows into no index, condition or address (emitter.relevant_values):
   only memory sees it, and the harness reads memory back as unknown values */
#define VK_HAVOC_FLOAT(nd, expr) (nd())
/* a C library call CBMC's SMT back end cannot take (ops.UNMODELLED): any value */
#define VK_UNMODELLED(nd, expr) (nd())
/* the value of an access skipped after its failed bounds check */
#define VK_SKIPPED(nd) (nd())
/* -DVK_SMALL=N: only launches whose dims and shapes are at most N (a second
   CBMC run that looks for a counterexample replay can run; never a proof) */
#ifdef VK_SMALL
#define VK_SMALL_INPUT(x) __CPROVER_assume((x) <= VK_SMALL)
#else
#define VK_SMALL_INPUT(x) ((void)0)
#endif
_Bool nondet_bool(void);
int8_t nondet_int8(void);
int16_t nondet_int16(void);
int32_t nondet_int32(void);
int64_t nondet_int64(void);
uint8_t nondet_uint8(void);
uint16_t nondet_uint16(void);
uint32_t nondet_uint32(void);
uint64_t nondet_uint64(void);
float nondet_float(void);
double nondet_double(void);
#endif
"""


def _compare_helpers() -> str:
    cmp = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
    out = []
    for suffix, t in [(f"u{b}", f"uint{b}_t") for b in _SIGNED] + [("b", "bool")]:
        for op, sym in cmp.items():
            out.append(f"static inline bool vk_{op}_{suffix}({t} a, {t} b) {{ return a {sym} b; }}\n")
        if suffix != "b":
            out.append(f"static inline {t} vk_min_{suffix}({t} a, {t} b) {{ return a < b ? a : b; }}\n"
                       f"static inline {t} vk_max_{suffix}({t} a, {t} b) {{ return a > b ? a : b; }}\n")
    return "".join(out)


# only in files of float16 kernels: a compiler or CBMC without _Float16
# (gcc before 12, CBMC 5) still reads every other kernel's file
_FLOAT16 = "#ifndef VERIKERN_REPLAY\n_Float16 nondet_float16(void);\n#endif\n"


def prelude(float16: bool = False) -> str:
    """The helpers and mode macros; `float16`: the kernel has float16 values
    (the declaration of nondet_float16)."""
    return ("#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
            "#include <string.h>\n#include <math.h>\n" + _MODES + (_FLOAT16 if float16 else "")
            + "\n"
            + _wrap_helpers() + _division_helpers() + _float_to_int_helpers()
            + _compare_helpers())
