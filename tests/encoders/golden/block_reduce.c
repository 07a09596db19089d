/* verikern C encoding of kernel block_sum (block_reduce.py:16:1).
 * CBMC:   cbmc THIS.c --unwinding-assertions --unwind N
 * replay: cc -std=c11 -DVERIKERN_REPLAY -I<verikern/encoders/c> THIS.c -lm
 *         ./a.out counterexample.json
 * Each check's message is '<obligation id> <kind> <file>:<line>:<col>'. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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

static inline int8_t vk_s8(uint32_t u) {
    u &= 0xFFu;
    return (u & 0x80u) ? (int8_t)(-(int32_t)(~u & 0x7Fu) - 1) : (int8_t)u;
}
static inline int16_t vk_s16(uint32_t u) {
    u &= 0xFFFFu;
    return (u & 0x8000u) ? (int16_t)(-(int32_t)(~u & 0x7FFFu) - 1) : (int16_t)u;
}
static inline int32_t vk_s32(uint32_t u) {
    u &= 0xFFFFFFFFu;
    return (u & 0x80000000u) ? (int32_t)(-(int32_t)(~u & 0x7FFFFFFFu) - 1) : (int32_t)u;
}
static inline int64_t vk_s64(uint64_t u) {
    u &= 0xFFFFFFFFFFFFFFFFULL;
    return (u & 0x8000000000000000ULL) ? (int64_t)(-(int64_t)(~u & 0x7FFFFFFFFFFFFFFFULL) - 1) : (int64_t)u;
}
static inline int8_t vk_div_i8(int8_t a, int8_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s8((uint32_t)0u - (uint32_t)a);
    return (int8_t)(a / b);
}
static inline int8_t vk_mod_i8(int8_t a, int8_t b) {
    if (b == 0 || b == -1) return 0;
    return (int8_t)(a % b);
}
static inline int8_t vk_floordiv_i8(int8_t a, int8_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s8((uint32_t)0u - (uint32_t)a);
    int8_t q = (int8_t)(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) q = (int8_t)(q - 1);
    return q;
}
static inline int8_t vk_shr_i8(int8_t a, unsigned s) {
    return a < 0 ? (int8_t)~((~a) >> s) : (int8_t)(a >> s);
}
static inline uint8_t vk_div_u8(uint8_t a, uint8_t b) { return b == 0 ? 0 : (uint8_t)(a / b); }
static inline uint8_t vk_floordiv_u8(uint8_t a, uint8_t b) { return b == 0 ? 0 : (uint8_t)(a / b); }
static inline uint8_t vk_mod_u8(uint8_t a, uint8_t b) { return b == 0 ? 0 : (uint8_t)(a % b); }
static inline int16_t vk_div_i16(int16_t a, int16_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s16((uint32_t)0u - (uint32_t)a);
    return (int16_t)(a / b);
}
static inline int16_t vk_mod_i16(int16_t a, int16_t b) {
    if (b == 0 || b == -1) return 0;
    return (int16_t)(a % b);
}
static inline int16_t vk_floordiv_i16(int16_t a, int16_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s16((uint32_t)0u - (uint32_t)a);
    int16_t q = (int16_t)(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) q = (int16_t)(q - 1);
    return q;
}
static inline int16_t vk_shr_i16(int16_t a, unsigned s) {
    return a < 0 ? (int16_t)~((~a) >> s) : (int16_t)(a >> s);
}
static inline uint16_t vk_div_u16(uint16_t a, uint16_t b) { return b == 0 ? 0 : (uint16_t)(a / b); }
static inline uint16_t vk_floordiv_u16(uint16_t a, uint16_t b) { return b == 0 ? 0 : (uint16_t)(a / b); }
static inline uint16_t vk_mod_u16(uint16_t a, uint16_t b) { return b == 0 ? 0 : (uint16_t)(a % b); }
static inline int32_t vk_div_i32(int32_t a, int32_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s32((uint32_t)0u - (uint32_t)a);
    return (int32_t)(a / b);
}
static inline int32_t vk_mod_i32(int32_t a, int32_t b) {
    if (b == 0 || b == -1) return 0;
    return (int32_t)(a % b);
}
static inline int32_t vk_floordiv_i32(int32_t a, int32_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s32((uint32_t)0u - (uint32_t)a);
    int32_t q = (int32_t)(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) q = (int32_t)(q - 1);
    return q;
}
static inline int32_t vk_shr_i32(int32_t a, unsigned s) {
    return a < 0 ? (int32_t)~((~a) >> s) : (int32_t)(a >> s);
}
static inline uint32_t vk_div_u32(uint32_t a, uint32_t b) { return b == 0 ? 0 : (uint32_t)(a / b); }
static inline uint32_t vk_floordiv_u32(uint32_t a, uint32_t b) { return b == 0 ? 0 : (uint32_t)(a / b); }
static inline uint32_t vk_mod_u32(uint32_t a, uint32_t b) { return b == 0 ? 0 : (uint32_t)(a % b); }
static inline int64_t vk_div_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s64((uint64_t)0u - (uint64_t)a);
    return (int64_t)(a / b);
}
static inline int64_t vk_mod_i64(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    return (int64_t)(a % b);
}
static inline int64_t vk_floordiv_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return vk_s64((uint64_t)0u - (uint64_t)a);
    int64_t q = (int64_t)(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) q = (int64_t)(q - 1);
    return q;
}
static inline int64_t vk_shr_i64(int64_t a, unsigned s) {
    return a < 0 ? (int64_t)~((~a) >> s) : (int64_t)(a >> s);
}
static inline uint64_t vk_div_u64(uint64_t a, uint64_t b) { return b == 0 ? 0 : (uint64_t)(a / b); }
static inline uint64_t vk_floordiv_u64(uint64_t a, uint64_t b) { return b == 0 ? 0 : (uint64_t)(a / b); }
static inline uint64_t vk_mod_u64(uint64_t a, uint64_t b) { return b == 0 ? 0 : (uint64_t)(a % b); }
static inline int8_t vk_f2i8(double x) {
    if (x != x) return 0;
    if (x >= 128.0) return INT8_MAX;
    return x > -129.0 ? (int8_t)x : INT8_MIN;
}
static inline uint8_t vk_f2u8(double x) {
    if (x != x || x <= -1.0) return 0u;
    return x < 256.0 ? (uint8_t)x : UINT8_MAX;
}
static inline int16_t vk_f2i16(double x) {
    if (x != x) return 0;
    if (x >= 32768.0) return INT16_MAX;
    return x > -32769.0 ? (int16_t)x : INT16_MIN;
}
static inline uint16_t vk_f2u16(double x) {
    if (x != x || x <= -1.0) return 0u;
    return x < 65536.0 ? (uint16_t)x : UINT16_MAX;
}
static inline int32_t vk_f2i32(double x) {
    if (x != x) return 0;
    if (x >= 2147483648.0) return INT32_MAX;
    return x > -2147483649.0 ? (int32_t)x : INT32_MIN;
}
static inline uint32_t vk_f2u32(double x) {
    if (x != x || x <= -1.0) return 0u;
    return x < 4294967296.0 ? (uint32_t)x : UINT32_MAX;
}
static inline int64_t vk_f2i64(double x) {
    if (x != x) return 0;
    if (x >= 9.223372036854776e+18) return INT64_MAX;
    return x >= -9.223372036854776e+18 ? (int64_t)x : INT64_MIN;
}
static inline uint64_t vk_f2u64(double x) {
    if (x != x || x <= -1.0) return 0u;
    return x < 1.8446744073709552e+19 ? (uint64_t)x : UINT64_MAX;
}
static inline bool vk_eq_u8(uint8_t a, uint8_t b) { return a == b; }
static inline bool vk_ne_u8(uint8_t a, uint8_t b) { return a != b; }
static inline bool vk_lt_u8(uint8_t a, uint8_t b) { return a < b; }
static inline bool vk_le_u8(uint8_t a, uint8_t b) { return a <= b; }
static inline bool vk_gt_u8(uint8_t a, uint8_t b) { return a > b; }
static inline bool vk_ge_u8(uint8_t a, uint8_t b) { return a >= b; }
static inline uint8_t vk_min_u8(uint8_t a, uint8_t b) { return a < b ? a : b; }
static inline uint8_t vk_max_u8(uint8_t a, uint8_t b) { return a > b ? a : b; }
static inline bool vk_eq_u16(uint16_t a, uint16_t b) { return a == b; }
static inline bool vk_ne_u16(uint16_t a, uint16_t b) { return a != b; }
static inline bool vk_lt_u16(uint16_t a, uint16_t b) { return a < b; }
static inline bool vk_le_u16(uint16_t a, uint16_t b) { return a <= b; }
static inline bool vk_gt_u16(uint16_t a, uint16_t b) { return a > b; }
static inline bool vk_ge_u16(uint16_t a, uint16_t b) { return a >= b; }
static inline uint16_t vk_min_u16(uint16_t a, uint16_t b) { return a < b ? a : b; }
static inline uint16_t vk_max_u16(uint16_t a, uint16_t b) { return a > b ? a : b; }
static inline bool vk_eq_u32(uint32_t a, uint32_t b) { return a == b; }
static inline bool vk_ne_u32(uint32_t a, uint32_t b) { return a != b; }
static inline bool vk_lt_u32(uint32_t a, uint32_t b) { return a < b; }
static inline bool vk_le_u32(uint32_t a, uint32_t b) { return a <= b; }
static inline bool vk_gt_u32(uint32_t a, uint32_t b) { return a > b; }
static inline bool vk_ge_u32(uint32_t a, uint32_t b) { return a >= b; }
static inline uint32_t vk_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t vk_max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline bool vk_eq_u64(uint64_t a, uint64_t b) { return a == b; }
static inline bool vk_ne_u64(uint64_t a, uint64_t b) { return a != b; }
static inline bool vk_lt_u64(uint64_t a, uint64_t b) { return a < b; }
static inline bool vk_le_u64(uint64_t a, uint64_t b) { return a <= b; }
static inline bool vk_gt_u64(uint64_t a, uint64_t b) { return a > b; }
static inline bool vk_ge_u64(uint64_t a, uint64_t b) { return a >= b; }
static inline uint64_t vk_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t vk_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline bool vk_eq_b(bool a, bool b) { return a == b; }
static inline bool vk_ne_b(bool a, bool b) { return a != b; }
static inline bool vk_lt_b(bool a, bool b) { return a < b; }
static inline bool vk_le_b(bool a, bool b) { return a <= b; }
static inline bool vk_gt_b(bool a, bool b) { return a > b; }
static inline bool vk_ge_b(bool a, bool b) { return a >= b; }

#ifdef VERIKERN_REPLAY
typedef struct { int same_block; size_t n, cap; int *site; uint64_t *flat; } vk_race;
static inline void vk_race_record(vk_race *R, int site, uint64_t flat) {
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 64;
        R->site = (int *)vk_realloc(R->site, R->cap * sizeof(int));
        R->flat = (uint64_t *)vk_realloc(R->flat, R->cap * sizeof(uint64_t));
    }
    R->site[R->n] = site; R->flat[R->n] = flat; R->n++;
}
static inline bool vk_race_hit(const vk_race *R, int site, uint64_t flat) {
    for (size_t i = 0; i < R->n; i++)
        if (R->site[i] == site && R->flat[i] == flat) return true;
    return false;
}
static inline void vk_race_clear(vk_race *R) { R->n = 0; }
/* shadow memory of one element: thread id + 1 (0: none), epoch, site */
typedef struct { int64_t w, r1, r2; int32_t we, r1e, r2e; int ws, r1s, r2s; bool wa; } vk_shadow;
#define VK_MAX_SHADOW (1u << 22)
#define VK_CHECK_GROUP(c, msg) do { if (!(c)) vk_report_group(msg); } while (0)
#else
/* GPUVerify-style: T1 keeps one access it chose nondeterministically */
typedef struct { int same_block; bool valid; int site; uint64_t flat; } vk_race;
static inline void vk_race_record(vk_race *R, int site, uint64_t flat) {
    if (nondet_bool()) { R->valid = true; R->site = site; R->flat = flat; }
}
static inline bool vk_race_hit(const vk_race *R, int site, uint64_t flat) {
    return R->valid && R->site == site && R->flat == flat;
}
static inline void vk_race_clear(vk_race *R) { R->valid = false; }
#define VK_CHECK_GROUP(c, msg) VK_CHECK(c, msg)
static inline void vk_end_group(void) { }
/* the launch's arrays exist (CBMC 6 models a failing malloc by default; an
   allocation failure is the host's, not the kernel's, so it is assumed away) */
static inline void *vk_alloc(uint64_t n, size_t size) {
    void *p = malloc(n * size + 1);
    __CPROVER_assume(p != NULL);
    return p;
}
static inline void vk_poison(void *p, uint64_t n, size_t size, int is_float) {
    (void)p; (void)n; (void)size; (void)is_float;   /* CBMC: malloc'd memory is unknown */
}
#endif
typedef struct {
    int32_t dim[4]; int32_t size, block_dim, grid_dim;
    uint64_t contracts_checked;
    float *g0_x; int32_t g0_x_shape[1]; uint64_t g0_x_count; void *g0_x_shadow;
    float *g1_partial; int32_t g1_partial_shape[1]; uint64_t g1_partial_count; void *g1_partial_shadow;
} vk_launch;
#ifndef VERIKERN_REPLAY   /* the last element read of each input array */
static uint64_t vk_read_g0_x_flat; static float vk_read_g0_x_val;
#endif
typedef struct {
    float *sh0_buf; void *sh0_buf_shadow; bool *sh0_buf_written;
    int32_t epoch;   /* barrier intervals the block completed */
} vk_block;
typedef struct {
    int pc; int32_t bidx, tidx, gid, gid_hi, gid_lo; uint64_t flat; bool inb, dead;
    int32_t v0;
    int32_t v1;
    int32_t v2;
    int32_t v3;
    bool v4;
    int32_t v5;
    int32_t v6;
    int32_t v7;
    int32_t v8;
    int32_t v9;
    int32_t v10;
    int32_t v11;
    bool v12;
    float v13;
    float v14;
    int32_t v15;
    int32_t v16;
    int32_t v17;
    bool v18;
    bool v19;
    float v20;
    int32_t v21;
    float v22;
    float v23;
    int32_t v24;
    int32_t v25;
    bool v26;
    int32_t v27;
    bool v28;
    bool v29;
    float v30;
} vk_thread;
#ifdef VERIKERN_REPLAY
static const char *const vk_race_messages[7][7] = {
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {NULL, "race@24:5+24:5 race block_reduce.py:24:5", "race@24:5+29:22 race block_reduce.py:24:5", "race@24:5+29:31 race block_reduce.py:24:5", "race@24:5+29:13 race block_reduce.py:24:5", "race@24:5+34:22 race block_reduce.py:24:5", NULL},
    {NULL, "race@24:5+29:22 race block_reduce.py:24:5", NULL, NULL, "race@29:22+29:13 race block_reduce.py:29:22", NULL, NULL},
    {NULL, "race@24:5+29:31 race block_reduce.py:24:5", NULL, NULL, "race@29:31+29:13 race block_reduce.py:29:31", NULL, NULL},
    {NULL, "race@24:5+29:13 race block_reduce.py:24:5", "race@29:22+29:13 race block_reduce.py:29:22", "race@29:31+29:13 race block_reduce.py:29:31", "race@29:13+29:13 race block_reduce.py:29:13", "race@29:13+34:22 race block_reduce.py:29:13", NULL},
    {NULL, "race@24:5+34:22 race block_reduce.py:24:5", NULL, NULL, "race@29:13+34:22 race block_reduce.py:29:13", NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, "race@34:9+34:9 race block_reduce.py:34:9"}
};

/* Replay: every access of a shadowed array is checked against the element's
   last writer and two last readers from other threads that no barrier
   separates from it (other blocks: never), so a race between any two threads
   of the launch is reported, not only one between T1 and T2. */
static inline void vk_race_found(int a, int b) {
    if (vk_race_messages[a][b] != NULL) vk_report(vk_race_messages[a][b]);
}
static inline bool vk_concurrent(int64_t who, int32_t ep, int64_t tid, int32_t B, int32_t epoch) {
    return who != 0 && who - 1 != tid && ((who - 1) / B != tid / B || ep == epoch);
}
static inline void vk_shadow_access(void *shadow, uint64_t f, int64_t tid, int32_t B,
                                    int32_t epoch, int site, bool write, bool atomic) {
    if (shadow == NULL) return;
    vk_shadow *e = (vk_shadow *)shadow + f;
    if (vk_concurrent(e->w, e->we, tid, B, epoch) && !(e->wa && atomic)) vk_race_found(e->ws, site);
    if (write) {
        if (vk_concurrent(e->r1, e->r1e, tid, B, epoch)) vk_race_found(e->r1s, site);
        if (vk_concurrent(e->r2, e->r2e, tid, B, epoch)) vk_race_found(e->r2s, site);
        e->w = tid + 1; e->we = epoch; e->ws = site; e->wa = atomic;
    } else if (e->r1 == 0 || e->r1 == tid + 1 || !vk_concurrent(e->r1, e->r1e, tid, B, epoch)) {
        e->r1 = tid + 1; e->r1e = epoch; e->r1s = site;
    } else {
        e->r2 = tid + 1; e->r2e = epoch; e->r2s = site;
    }
}
#endif
static int vk_step(vk_launch *L, vk_block *S, vk_thread *T, vk_race *R, int role) {
    (void)L; (void)S; (void)R; (void)role;
    switch (T->pc) {
        case 0: goto L_entry0;
        case 1: goto B0;
        case 2: goto B1;
        default: return T->pc;   /* -1 returned, -3 stopped at a failure */
    }
L_entry0:;
    /* 17:17 special */
    T->v0 = L->block_dim;
    /* 17:35 special */
    T->v1 = L->block_dim;
    /* 17:35 binop */
    T->v2 = vk_s32(((uint32_t)(T->v1)) - ((uint32_t)(((int32_t)1LL))));
    /* 17:17 binop */
    T->v3 = vk_s32(((uint32_t)(T->v0)) & ((uint32_t)(T->v2)));
    /* 17:17 cmp */
    T->v4 = ((T->v3) == (((int32_t)0LL)));
    /* 17:5 requires */
    VK_ASSUME(T->v4, "requires block_reduce.py:17:5");
    /* 19:9 special */
    T->v5 = T->tidx;
    /* 20:9 special */
    T->v6 = T->bidx;
    /* 20:9 special */
    T->v7 = L->block_dim;
    /* 20:9 special */
    T->v8 = T->tidx;
    /* 20:9 binop */
    T->v9 = vk_s32(((uint32_t)(T->v6)) * ((uint32_t)(T->v7)));
    /* 20:9 binop */
    T->v10 = T->gid;
    /* 22:12 shape */
    T->v11 = L->g0_x_shape[0];
    /* 22:8 cmp */
    T->v12 = ((T->v10) < (T->v11));
    if (T->dead) { T->pc = -3; return -3; }
    if (T->v12) {
        goto L_then1;
    } else {
        T->v14 = ((float)0x0.0p+0);
        goto L_endif2;
    }
L_then1:;
    /* 23:13 load */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v10) >= 0 && (uint64_t)(int64_t)(T->v10) < (uint64_t)L->g0_x_shape[0], "bounds@23:13#0 bounds block_reduce.py:23:13")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v10);
        T->v13 = L->g0_x[T->flat];
        VK_TRACE_READ(vk_read_g0_x_flat = T->flat; vk_read_g0_x_val = T->v13);
    } else {
        T->v13 = VK_SKIPPED(nondet_float);
    }
    if (T->dead) { T->pc = -3; return -3; }
    T->v14 = T->v13;
    goto L_endif2;
L_endif2:;
    /* 24:5 store */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v5) >= 0 && (uint64_t)(int64_t)(T->v5) < 1024u, "bounds@24:5#0 bounds block_reduce.py:24:5")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v5);
        if (role == 2) {
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 1, T->flat)), "race@24:5+24:5 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 2, T->flat)), "race@24:5+29:22 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 3, T->flat)), "race@24:5+29:31 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 4, T->flat)), "race@24:5+29:13 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 5, T->flat)), "race@24:5+34:22 race block_reduce.py:24:5");
        }
        if (role == 1) vk_race_record(R, 1, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(S->sh0_buf_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 1, 1, 0);
#endif
#ifdef VERIKERN_REPLAY
        S->sh0_buf_written[T->flat] = 1;
#endif
        S->sh0_buf[T->flat] = T->v14;
    }
    /* 25:5 barrier */
    if (T->dead) { T->pc = -3; return -3; }
    T->pc = 1; return 0;
B0:;
    /* 26:9 special */
    T->v15 = L->block_dim;
    /* 26:9 binop */
    T->v16 = vk_floordiv_i32(T->v15, ((int32_t)2LL));
    if (T->dead) { T->pc = -3; return -3; }
    T->v17 = T->v16;
    goto L_loop3;
L_loop3:;
    /* 27:11 cmp */
    T->v18 = ((T->v17) > (((int32_t)0LL)));
    if (T->dead) { T->pc = -3; return -3; }
    if (T->v18) {
        goto L_body4;
    } else {
        goto L_endloop5;
    }
L_body4:;
    /* 28:12 cmp */
    T->v19 = ((T->v5) < (T->v17));
    if (T->dead) { T->pc = -3; return -3; }
    if (T->v19) {
        goto L_then6;
    } else {
        goto L_endif7;
    }
L_then6:;
    /* 29:22 load */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v5) >= 0 && (uint64_t)(int64_t)(T->v5) < 1024u, "bounds@29:22#0 bounds block_reduce.py:29:22")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v5);
        if (role == 2) {
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 1, T->flat)), "race@24:5+29:22 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 4, T->flat)), "race@29:22+29:13 race block_reduce.py:29:22");
        }
        if (role == 1) vk_race_record(R, 2, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(S->sh0_buf_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 2, 0, 0);
#endif
#ifdef VERIKERN_REPLAY
        (void)VK_REPORT_CHECK(S->sh0_buf_written[T->flat], "uninit@29:22 uninit block_reduce.py:29:22");
#endif
        T->v20 = VK_WRITTEN_LOAD(nondet_float, S->sh0_buf[T->flat]);
    } else {
        T->v20 = VK_SKIPPED(nondet_float);
    }
    /* 29:35 binop */
    T->v21 = vk_s32(((uint32_t)(T->v5)) + ((uint32_t)(T->v17)));
    /* 29:31 load */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v21) >= 0 && (uint64_t)(int64_t)(T->v21) < 1024u, "bounds@29:31#0 bounds block_reduce.py:29:31")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v21);
        if (role == 2) {
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 1, T->flat)), "race@24:5+29:31 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 4, T->flat)), "race@29:31+29:13 race block_reduce.py:29:31");
        }
        if (role == 1) vk_race_record(R, 3, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(S->sh0_buf_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 3, 0, 0);
#endif
#ifdef VERIKERN_REPLAY
        (void)VK_REPORT_CHECK(S->sh0_buf_written[T->flat], "uninit@29:31 uninit block_reduce.py:29:31");
#endif
        T->v22 = VK_WRITTEN_LOAD(nondet_float, S->sh0_buf[T->flat]);
    } else {
        T->v22 = VK_SKIPPED(nondet_float);
    }
    /* 29:22 binop */
    T->v23 = VK_HAVOC_FLOAT(nondet_float, ((float)((T->v20) + (T->v22))));
    /* 29:13 store */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v5) >= 0 && (uint64_t)(int64_t)(T->v5) < 1024u, "bounds@29:13#0 bounds block_reduce.py:29:13")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v5);
        if (role == 2) {
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 1, T->flat)), "race@24:5+29:13 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 4, T->flat)), "race@29:13+29:13 race block_reduce.py:29:13");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 5, T->flat)), "race@29:13+34:22 race block_reduce.py:29:13");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 2, T->flat)), "race@29:22+29:13 race block_reduce.py:29:22");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 3, T->flat)), "race@29:31+29:13 race block_reduce.py:29:31");
        }
        if (role == 1) vk_race_record(R, 4, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(S->sh0_buf_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 4, 1, 0);
#endif
#ifdef VERIKERN_REPLAY
        S->sh0_buf_written[T->flat] = 1;
#endif
        S->sh0_buf[T->flat] = T->v23;
    }
    if (T->dead) { T->pc = -3; return -3; }
    goto L_endif7;
L_endif7:;
    /* 30:9 barrier */
    if (T->dead) { T->pc = -3; return -3; }
    T->pc = 2; return 1;
B1:;
    /* 31:9 binop */
    T->v24 = vk_floordiv_i32(T->v17, ((int32_t)2LL));
    if (T->dead) { T->pc = -3; return -3; }
    goto L_latch8;
L_latch8:;
    if (T->dead) { T->pc = -3; return -3; }
    T->v17 = T->v24;
    goto L_loop3;
L_endloop5:;
    /* 32:9 special */
    T->v25 = T->bidx;
    /* 33:8 cmp */
    T->v26 = ((T->v5) == (((int32_t)0LL)));
    /* 33:23 shape */
    T->v27 = L->g1_partial_shape[0];
    /* 33:19 cmp */
    T->v28 = ((T->v25) < (T->v27));
    /* 33:8 binop */
    T->v29 = ((T->v26) && (T->v28));
    if (T->dead) { T->pc = -3; return -3; }
    if (T->v29) {
        goto L_then9;
    } else {
        goto L_endif10;
    }
L_then9:;
    /* 34:22 load */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(((int32_t)0LL)) >= 0 && (uint64_t)(int64_t)(((int32_t)0LL)) < 1024u, "bounds@34:22#0 bounds block_reduce.py:34:22")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(((int32_t)0LL));
        if (role == 2) {
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 1, T->flat)), "race@24:5+34:22 race block_reduce.py:24:5");
            (void)VK_RACE_CHECK(!(R->same_block && vk_race_hit(R, 4, T->flat)), "race@29:13+34:22 race block_reduce.py:29:13");
        }
        if (role == 1) vk_race_record(R, 5, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(S->sh0_buf_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 5, 0, 0);
#endif
#ifdef VERIKERN_REPLAY
        (void)VK_REPORT_CHECK(S->sh0_buf_written[T->flat], "uninit@34:22 uninit block_reduce.py:34:22");
#endif
        T->v30 = VK_WRITTEN_LOAD(nondet_float, S->sh0_buf[T->flat]);
    } else {
        T->v30 = VK_SKIPPED(nondet_float);
    }
    /* 34:9 store */
    T->inb = 1;
    if (!VK_SOFT_CHECK((int64_t)(T->v25) >= 0 && (uint64_t)(int64_t)(T->v25) < (uint64_t)L->g1_partial_shape[0], "bounds@34:9#0 bounds block_reduce.py:34:9")) T->inb = 0;
    if (T->inb) {
        T->flat = (uint64_t)(int64_t)(T->v25);
        if (role == 2) {
            (void)VK_RACE_CHECK(!(vk_race_hit(R, 6, T->flat)), "race@34:9+34:9 race block_reduce.py:34:9");
        }
        if (role == 1) vk_race_record(R, 6, T->flat);
#ifdef VERIKERN_REPLAY
        vk_shadow_access(L->g1_partial_shadow, T->flat, (int64_t)T->bidx * L->block_dim + T->tidx, L->block_dim, S->epoch, 6, 1, 0);
#endif
        L->g1_partial[T->flat] = T->v30;
    }
    if (T->dead) { T->pc = -3; return -3; }
    goto L_endif10;
L_endif10:;
    if (T->dead) { T->pc = -3; return -3; }
    T->pc = -1; return -1;
}
static void vk_check_divergence(int s1, int s2) {
    (void)s1; (void)s2;
    VK_CHECK_GROUP(s1 == -3 || s2 == -3 || !(s1 != s2 && (s1 == 0 || s2 == 0)), "divergence@25:5 divergence block_reduce.py:25:5");
    VK_CHECK_GROUP(s1 == -3 || s2 == -3 || !(s1 != s2 && (s1 == 1 || s2 == 1)), "divergence@30:9 divergence block_reduce.py:30:9");
    vk_end_group();
}
static void vk_block_alloc(vk_block *S) {
    *S = (vk_block){0};
    S->sh0_buf = (float *)vk_alloc(1024u, sizeof(float));
    vk_poison(S->sh0_buf, 1024u, sizeof(float), 1);
#ifdef VERIKERN_REPLAY
    S->sh0_buf_shadow = vk_alloc(1024u, sizeof(vk_shadow));
    S->sh0_buf_written = (bool *)vk_alloc(1024u, sizeof(bool));
#endif
}
static void vk_block_free(vk_block *S) {
    free(S->sh0_buf); free(S->sh0_buf_shadow); free(S->sh0_buf_written);
    (void)S;
}

#ifdef VERIKERN_REPLAY
#define VK_LAST_DIM 0
/* block * block_dim + thread in int32 arithmetic, as vk.tid() computes it, and
   its quotient and remainder by the last launch dimension */
static inline void vk_ids(const vk_launch *L, vk_thread *T) {
    T->gid = vk_s32((uint32_t)T->bidx * (uint32_t)L->block_dim + (uint32_t)T->tidx);
    T->gid_hi = vk_floordiv_i32(T->gid, L->dim[VK_LAST_DIM]);
    T->gid_lo = vk_mod_i32(T->gid, L->dim[VK_LAST_DIM]);
}

/* skip: T1 and T2 already ran (independent threads) */
static void vk_run_block(vk_launch *L, int32_t b, vk_race *R,
                         int32_t b1, int32_t t1, int32_t b2, int32_t t2, int skip) {
    int64_t left = (int64_t)L->size - (int64_t)b * L->block_dim;
    int32_t n = left < L->block_dim ? (int32_t)left : L->block_dim;
    vk_thread *th = (vk_thread *)vk_alloc((uint64_t)n, sizeof(vk_thread));
    int *st = (int *)vk_alloc((uint64_t)n, sizeof(int));
    vk_block S; vk_block_alloc(&S);
    for (int32_t t = 0; t < n; t++) { th[t].bidx = b; th[t].tidx = t; vk_ids(L, &th[t]); }
    for (;;) {
        for (int32_t t = 0; t < n; t++) {
            int role = (b == b1 && t == t1) ? 1 : (b == b2 && t == t2) ? 2 : 0;
            st[t] = (skip && role) ? -1 : vk_step(L, &S, &th[t], R, skip ? 0 : role);
        }
        int ref = -3;   /* a thread that stopped at a failure (-3) waits for nothing */
        for (int32_t t = 0; t < n; t++) {
            if (st[t] == -3) continue;
            if (ref == -3) ref = st[t];
            else vk_check_divergence(ref, st[t]);
        }
        if (ref < 0) break;
        if (R->same_block && b == b1) vk_race_clear(R);
        S.epoch++;
    }
    vk_block_free(&S);
    free(th); free(st);
}
#endif
int main(int argc, char **argv) {
    (void)argc; (void)argv;
#ifdef VERIKERN_REPLAY
    vk_harness_open(argc, argv);
#endif
    vk_launch L = {0};   /* no memset (vk_block_alloc) */
    uint64_t size = 1;
    L.dim[0] = VK_IN_INT(nondet_int32, int32_t, "dims", NULL, 0);
    VK_ASSUME(L.dim[0] >= 1, "hardware limits (docs/LANGUAGE.md section 5)");
    VK_SMALL_INPUT(L.dim[0]);
    size *= (uint64_t)L.dim[0];
    VK_ASSUME(size < 2147483648u, "hardware limits (docs/LANGUAGE.md section 5)");
    L.block_dim = VK_IN_INT(nondet_int32, int32_t, "block_dim", NULL, -1);
    VK_ASSUME(L.block_dim >= 1 && L.block_dim <= 1024, "hardware limits (docs/LANGUAGE.md section 5)");
    L.size = (int32_t)size;
#ifdef VERIKERN_REPLAY
    L.grid_dim = (int32_t)((size + (uint64_t)L.block_dim - 1) / (uint64_t)L.block_dim);
    VK_ASSUME(size % (uint64_t)L.block_dim == 0, "hardware limits (docs/LANGUAGE.md section 5)");
#else
    L.grid_dim = nondet_int32();
    __CPROVER_assume(L.grid_dim >= 1 && (uint64_t)L.grid_dim <= size);
    __CPROVER_assume((uint64_t)(L.grid_dim - 1) * (uint64_t)L.block_dim < size && size <= (uint64_t)L.grid_dim * (uint64_t)L.block_dim);
    __CPROVER_assume((uint64_t)L.grid_dim * (uint64_t)L.block_dim == size);   /* size % block_dim == 0 */
#endif
    L.g0_x_shape[0] = VK_IN_INT(nondet_int32, int32_t, "shapes", "x", 0);
    VK_ASSUME(L.g0_x_shape[0] >= 0, "hardware limits (docs/LANGUAGE.md section 5)");
    VK_SMALL_INPUT(L.g0_x_shape[0]);
    { uint64_t n = (uint64_t)L.g0_x_shape[0]; const uint64_t c = VK_MAX_ARRAY_BYTES / sizeof(float); bool fits = n <= c;
      VK_ASSUME(fits, "hardware limits (docs/LANGUAGE.md section 5)");
      L.g0_x_count = n; }
    L.g0_x = (float *)vk_alloc(L.g0_x_count, sizeof(float));
#ifdef VERIKERN_REPLAY
    for (size_t j = 0; j < vk_in_array_size("x"); j++) {
        uint64_t flat; vk_number v;
        vk_in_array_entry("x", j, &flat, &v);
        if (flat < 1u * (uint64_t)L.g0_x_shape[0]) L.g0_x[flat] = (float)v.d;
    }
#endif
    L.g1_partial_shape[0] = VK_IN_INT(nondet_int32, int32_t, "shapes", "partial", 0);
    VK_ASSUME(L.g1_partial_shape[0] >= 0, "hardware limits (docs/LANGUAGE.md section 5)");
    VK_SMALL_INPUT(L.g1_partial_shape[0]);
    { uint64_t n = (uint64_t)L.g1_partial_shape[0]; const uint64_t c = VK_MAX_ARRAY_BYTES / sizeof(float); bool fits = n <= c;
      VK_ASSUME(fits, "hardware limits (docs/LANGUAGE.md section 5)");
      L.g1_partial_count = n; }
    L.g1_partial = (float *)vk_alloc(L.g1_partial_count, sizeof(float));
#ifdef VERIKERN_REPLAY
    if (1u * (uint64_t)L.g1_partial_shape[0] <= VK_MAX_SHADOW) L.g1_partial_shadow = vk_alloc(1u * (uint64_t)L.g1_partial_shape[0], sizeof(vk_shadow));
    for (size_t j = 0; j < vk_in_array_size("partial"); j++) {
        uint64_t flat; vk_number v;
        vk_in_array_entry("partial", j, &flat, &v);
        if (flat < 1u * (uint64_t)L.g1_partial_shape[0]) L.g1_partial[flat] = (float)v.d;
    }
#endif
    int32_t b1, t1, b2 = -1, t2 = -1; bool has2;
#ifdef VERIKERN_REPLAY
    b1 = (int32_t)vk_in_i64("threads", "block", 0);
    t1 = (int32_t)vk_in_i64("threads", "thread", 0);
    has2 = vk_in_count("threads") > 1;
    if (has2) { b2 = (int32_t)vk_in_i64("threads", "block", 1); t2 = (int32_t)vk_in_i64("threads", "thread", 1); }
#else
    b1 = nondet_int32(); t1 = nondet_int32(); has2 = nondet_bool();
    if (has2) { b2 = nondet_int32(); t2 = nondet_int32(); }
#endif
    VK_ASSUME(b1 >= 0 && b1 < L.grid_dim && t1 >= 0 && t1 < L.block_dim, "the threads exist in the launch");
    VK_ASSUME(!has2 || (b2 >= 0 && b2 < L.grid_dim && t2 >= 0 && t2 < L.block_dim && (b1 != b2 || t1 != t2)), "the threads exist in the launch");
    /* global ids: block * block_dim + thread, below size < 2**31 (no wrap) */
    int64_t g1 = (int64_t)b1 * L.block_dim + t1;
    int64_t g2 = has2 ? (int64_t)b2 * L.block_dim + t2 : -1;
    VK_ASSUME(g1 < L.size && g2 < L.size, "the threads exist in the launch");
#ifndef VERIKERN_REPLAY
    /* T1 runs first. The order of global ids is that of (block, thread) for
       threads of the launch (a theorem), so this is the swap below, stated
       without the multiplexers a swap costs CBMC */
    __CPROVER_assume(!has2 || g1 < g2);
#endif
    if (has2 && (b2 < b1 || (b2 == b1 && t2 < t1))) {   /* T1 runs first */
        int32_t x = b1; b1 = b2; b2 = x; x = t1; t1 = t2; t2 = x;
        int64_t y = g1; g1 = g2; g2 = y;
    }
    vk_race R = {0}; R.same_block = has2 && b1 == b2;
#ifdef VERIKERN_REPLAY
    vk_run_block(&L, b1, &R, b1, t1, b2, t2, 0);
    if (has2 && b2 != b1) vk_run_block(&L, b2, &R, b1, t1, b2, t2, 0);
    if (vk_failures) vk_ok();   /* exits 1 */
    for (int32_t b = 0; b < L.grid_dim; b++)
        if (b != b1 && !(has2 && b == b2)) vk_run_block(&L, b, &R, b1, t1, b2, t2, 0);
    vk_ok();
#else
    vk_block S1, S2; vk_block_alloc(&S1); vk_block_alloc(&S2);
    vk_thread th1 = {0}, th2 = {0};
    th1.bidx = b1; th1.tidx = t1; th2.bidx = b2; th2.tidx = t2;
    th1.gid = (int32_t)g1; th2.gid = (int32_t)g2;
    if (R.same_block) {
        for (;;) {
            int s1 = vk_step(&L, &S1, &th1, &R, 1);
            int s2 = vk_step(&L, &S1, &th2, &R, 2);
            vk_check_divergence(s1, s2);
            if (s1 < 0) break;
            vk_race_clear(&R);
        }
    } else {
        while (vk_step(&L, &S1, &th1, &R, 1) >= 0) { }
        if (has2) while (vk_step(&L, &S2, &th2, &R, 2) >= 0) { }
    }
#endif
    return 0;
}
