"""The C file around `vk_step`: state structs, race instrumentation, the
divergence checks and `main` (the verification harness / replay driver).

Invariants of the generated `main`:
- inputs are read in one place, each through a `VK_IN_*` macro: a
  `nondet_*()` call for CBMC, the counterexample file's value for replay
  (`"dims"`, `"block_dim"`, `"threads"`, `"scalars"`, `"shapes"`,
  `"arrays"`: the JSON of `Counterexample.to_json`);
- the hardware limits of docs/LANGUAGE.md section 5 (1 <= block_dim <= 1024,
  every dimension >= 1, fewer than 2**31 threads, size % block_dim == 0 when
  the kernel uses shared memory or barriers, a block_dim fixed by the kernel
  or by the caller), every `requires` and every array contract are assumed
  (`VK_ASSUME`) before any obligation is checked;
- CBMC: two threads T1 != T2 of the launch (T2 optional, so one-thread
  launches are covered) run, in lockstep by barrier intervals when they share
  a block; loads of elements other threads may write are unknown.  Replay:
  every thread of the launch runs, block by block (T1's block first, then
  T2's, then the others in order), each block interval by interval, threads
  in order; T1 and T2 (the counterexample's threads) carry the race
  instrumentation.
"""
from __future__ import annotations

from dataclasses import dataclass

from verikern.mir.facts import uses_float16
from verikern.mir.nodes import ArrayRef, Kernel

from .contracts import contract_helpers, contract_log_fields
from .emitter import StepEmitter, obligation_message, split_of_global_id
from .loops import LoopAbstraction
from .ops import c_string, ctype, nondet
from verikern.proofs.obligations import ObligationKind
from .prelude import prelude
from .tickets import ticket_fields

_RACE = r"""
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
"""


_SHADOW = r"""
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
"""


_GID = r"""
/* block * block_dim + thread in int32 arithmetic, as vk.tid() computes it, and
   its quotient and remainder by the last launch dimension */
static inline void vk_ids(const vk_launch *L, vk_thread *T) {
    T->gid = vk_s32((uint32_t)T->bidx * (uint32_t)L->block_dim + (uint32_t)T->tidx);
    T->gid_hi = vk_floordiv_i32(T->gid, L->dim[VK_LAST_DIM]);
    T->gid_lo = vk_mod_i32(T->gid, L->dim[VK_LAST_DIM]);
}
"""


#: The loops of the CBMC build's `main`, in the order of the text (CBMC's
#: `main.0`, `main.1`, `main.2`): each runs one call of `vk_step` per barrier
#: interval of a thread (both threads of a block in lockstep, or one thread).
INTERVAL_LOOPS = (
    "        for (;;) {",
    "        while (vk_step(&L, &S1, &th1, &R, 1) >= 0) { }",
    "        if (has2) while (vk_step(&L, &S2, &th2, &R, 2) >= 0) { }",
)


@dataclass(frozen=True)
class CLoop:
    """One loop of the CBMC build of the file, as `cbmc --show-loops` names
    it: `cbmc_id` (`vk_step.N`: the N-th goto back to an earlier block of
    vk_step in the text; `main.N`: main's barrier-interval loops), `line`
    (1-based, the line CBMC reports: the backward goto, or the loop
    statement), and `header`: the MIR loop header the goto returns to (None
    for main's loops, or a backward goto to a block that heads no MIR loop)."""

    cbmc_id: str
    line: int
    header: str | None


@dataclass(frozen=True)
class CEncoding:
    """The C file of a kernel (`text`) and the loops CBMC sees in it (`loops`;
    the CBMC build has no other loop: no do-while in its macros)."""

    text: str
    loops: tuple[CLoop, ...]


def _in(t, section: str, key: str | None, idx: str) -> str:
    nd = nondet(t)
    macro = "VK_IN_FLOAT" if t.is_float else "VK_IN_UINT" if t.kind == "uint" else "VK_IN_INT"
    k = c_string(key) if key is not None else "NULL"
    return f"{macro}({nd}, {ctype(t)}, \"{section}\", {k}, {idx})"


class HarnessEmitter:
    """Writes the whole C file for one kernel (see the module docstring)."""

    def __init__(self, kernel: Kernel, specs, dims=None, block_dim=None,
                 abstractions: tuple[LoopAbstraction, ...] = ()):
        self.k = kernel
        self.step = StepEmitter(kernel, specs, abstractions)
        self.specs = specs
        self.fixed_dims = tuple(dims) if dims else None
        self.fixed_block = block_dim if block_dim is not None else kernel.block_dim

    def structs(self) -> str:
        n = self.step.names
        out = ["typedef struct {",
               "    int32_t dim[4]; int32_t size, block_dim, grid_dim;",
               "    uint64_t contracts_checked;"]
        out += contract_log_fields(self.step)
        out += ticket_fields(self.step)
        for sp in self.k.scalar_params:
            out.append(f"    {ctype(sp.value.type)} {n.scalars[sp.value.id]};")
        for p in self.k.params:
            if isinstance(p, ArrayRef):
                f = n.arrays[("global", p.name)]
                out.append(f"    {ctype(p.dtype)} *{f}; int32_t {f}_shape[{p.ndim}]; "
                           f"uint64_t {f}_count; void *{f}_shadow;")
        out.append("} vk_launch;")
        out.append("#ifndef VERIKERN_REPLAY   /* the last element read of each input array */")
        for p in self.k.params:
            if isinstance(p, ArrayRef) and not self.step.havoc_load(p):
                f = n.arrays[("global", p.name)]
                out.append(f"static uint64_t vk_read_{f}_flat; static {ctype(p.dtype)} vk_read_{f}_val;")
        out.append("#endif")
        out.append("typedef struct {")
        for a in self.k.shared:
            f = n.arrays[('shared', a.name)]
            out.append(f"    {ctype(a.dtype)} *{f}; void *{f}_shadow; bool *{f}_written;")
        out.append("    int32_t epoch;   /* barrier intervals the block completed */")
        out.append("} vk_block;")
        out.append("typedef struct {")
        out.append("    int pc; int32_t bidx, tidx, gid, gid_hi, gid_lo; uint64_t flat; bool inb, dead;")
        out += self.step.abstracted.pass_fields()
        for vid, v in sorted(self.step.values.items()):
            if vid not in n.scalars:
                out.append(f"    {ctype(v.type)} v{vid};")
        out.append("} vk_thread;")
        return "\n".join(out) + "\n"

    def race_table(self) -> str:
        """Replay: the race obligation of each pair of access sites (NULL: none)
        and the shadow-memory check every access of a shadowed array makes."""
        n = len(self.step.access_sites)
        pairs = {}
        for site, partners in self.step.race_partners.items():
            for other, spec in partners:
                a, b = self.step.access_sites[site], self.step.access_sites[other]
                msg = c_string(obligation_message(spec, self.step.file))
                pairs[(a, b)] = pairs[(b, a)] = msg
        if not pairs:
            return ""
        rows = ",\n".join("    {" + ", ".join(pairs.get((a, b), "NULL") for b in range(n)) + "}"
                          for a in range(n))
        return ("#ifdef VERIKERN_REPLAY\n"
                f"static const char *const vk_race_messages[{n}][{n}] = {{\n{rows}\n}};\n"
                + _SHADOW + "#endif\n")

    def divergence(self) -> str:
        out = ["static void vk_check_divergence(int s1, int s2) {",
               "    (void)s1; (void)s2;"]
        for site, k in self.step.barriers.items():
            for spec in self.step.specs_at(site, ObligationKind.DIVERGENCE):
                msg = c_string(obligation_message(spec, self.step.file))
                # a thread stopped at a failure (-3) waits for nothing, as in replay
                out.append(f"    VK_CHECK_GROUP(s1 == -3 || s2 == -3 || "
                           f"!(s1 != s2 && (s1 == {k} || s2 == {k})), {msg});")
        out.append("    vk_end_group();")
        out.append("}")
        return "\n".join(out) + "\n"

    def shared_alloc(self) -> str:
        # zeroed by initialisers, not memset: CBMC's memset model lets a local of
        # its own die, and every later dereference of T, L, S and R then gets a
        # "dead object" check the solver has to refute (docs/C_ENCODER.md)
        out = ["static void vk_block_alloc(vk_block *S) {", "    *S = (vk_block){0};"]
        for a in self.k.shared:
            f = self.step.names.arrays[("shared", a.name)]
            count = 1
            assert a.shape is not None   # a shared array's shape is static (MIR verifier)
            for d in (*a.shape, *a.inner):
                count *= d
            out.append(f"    S->{f} = ({ctype(a.dtype)} *)vk_alloc({count}u, sizeof({ctype(a.dtype)}));")
            out.append(f"    vk_poison(S->{f}, {count}u, sizeof({ctype(a.dtype)}), "
                       f"{1 if a.dtype.is_float else 0});")
            out.append("#ifdef VERIKERN_REPLAY")
            if self.step.shadowed(a):
                out.append(f"    S->{f}_shadow = vk_alloc({count}u, sizeof(vk_shadow));")
            out.append(f"    S->{f}_written = (bool *)vk_alloc({count}u, sizeof(bool));")
            out.append("#endif")
        out.append("}")
        out.append("static void vk_block_free(vk_block *S) {")
        for a in self.k.shared:
            f = self.step.names.arrays[('shared', a.name)]
            out.append(f"    free(S->{f}); free(S->{f}_shadow); free(S->{f}_written);")
        out.append("    (void)S;\n}")
        return "\n".join(out) + "\n"

    def launch_inputs(self) -> list[str]:
        k = self.k
        n = self.step.names
        hw = c_string("hardware limits (docs/LANGUAGE.md section 5)")
        out = ["    vk_launch L = {0};   /* no memset (vk_block_alloc) */", "    uint64_t size = 1;"]
        for d in range(k.launch_ndim):
            read = f"VK_IN_INT(nondet_int32, int32_t, \"dims\", NULL, {d})"
            if self.fixed_dims:
                read = f"VK_LAUNCH_FIXED({read}, {self.fixed_dims[d]})"
            out.append(f"    L.dim[{d}] = {read};")
            out.append(f"    VK_ASSUME(L.dim[{d}] >= 1, {hw});")
            out.append(f"    VK_SMALL_INPUT(L.dim[{d}]);")
            out.append(f"    size *= (uint64_t)L.dim[{d}];")
            out.append(f"    VK_ASSUME(size < 2147483648u, {hw});")
            if self.fixed_dims:
                out.append(f"    VK_ASSUME(L.dim[{d}] == {self.fixed_dims[d]}, "
                           f"{c_string('the launch --dim')});")
        read = "VK_IN_INT(nondet_int32, int32_t, \"block_dim\", NULL, -1)"
        if self.fixed_block is not None:
            read = f"VK_LAUNCH_FIXED({read}, {self.fixed_block})"
        out.append(f"    L.block_dim = {read};")
        out.append(f"    VK_ASSUME(L.block_dim >= 1 && L.block_dim <= 1024, {hw});")
        if self.fixed_block is not None:
            out.append(f"    VK_ASSUME(L.block_dim == {self.fixed_block}, "
                       f"{c_string('the fixed block_dim')});")
        out.append("    L.size = (int32_t)size;")
        # CBMC: the grid size as the one number with (g - 1) * B < size <= g * B
        # (two products of 32-bit values) instead of a division, which costs CBMC
        # 20x the SAT time of the rest of saxpy's harness (docs/C_ENCODER.md)
        out.append("#ifdef VERIKERN_REPLAY")
        out.append("    L.grid_dim = (int32_t)((size + (uint64_t)L.block_dim - 1) / "
                   "(uint64_t)L.block_dim);")
        if k.uses_block_features:
            out.append(f"    VK_ASSUME(size % (uint64_t)L.block_dim == 0, {hw});")
        out.append("#else")
        if self.fixed_dims and self.fixed_block is not None:
            # a fixed launch: the grid size is a constant too (the assumptions
            # below hold for it; they stay for an inadmissible launch)
            size = 1
            for d in self.fixed_dims:
                size *= d
            out.append(f"    L.grid_dim = {-(-size // self.fixed_block)};")
        else:
            out.append("    L.grid_dim = nondet_int32();")
        out.append("    __CPROVER_assume(L.grid_dim >= 1 && (uint64_t)L.grid_dim <= size);")
        out.append("    __CPROVER_assume((uint64_t)(L.grid_dim - 1) * (uint64_t)L.block_dim < size "
                   "&& size <= (uint64_t)L.grid_dim * (uint64_t)L.block_dim);")
        if k.uses_block_features:
            out.append("    __CPROVER_assume((uint64_t)L.grid_dim * (uint64_t)L.block_dim == size);"
                       "   /* size % block_dim == 0 */")
        out.append("#endif")
        for sp in k.scalar_params:
            out.append(f"    L.{n.scalars[sp.value.id]} = "
                       f"{_in(sp.value.type, 'scalars', sp.name, '-1')};")
        for p in k.params:
            if not isinstance(p, ArrayRef):
                continue
            f = n.arrays[("global", p.name)]
            count = "1u"
            for d in range(p.ndim):
                out.append(f"    L.{f}_shape[{d}] = VK_IN_INT(nondet_int32, int32_t, \"shapes\", "
                           f"{c_string(p.name)}, {d});")
                out.append(f"    VK_ASSUME(L.{f}_shape[{d}] >= 0, {hw});")
                out.append(f"    VK_SMALL_INPUT(L.{f}_shape[{d}]);")
                count += f" * (uint64_t)L.{f}_shape[{d}]"
            for d in p.inner:
                count += f" * {d}u"
            t = ctype(p.dtype)
            # every array fits in one device's memory (docs/LANGUAGE.md: at most
            # VK_MAX_ARRAY_BYTES bytes), its element count computed without wrapping
            factors = [f"(uint64_t)L.{f}_shape[{d}]" for d in range(p.ndim)] + [
                f"{d}u" for d in p.inner]
            # (two factors below 2**32 never wrap 64 bits: CBMC gets a plain product;
            # each further one goes through vk_count_fits, without a 128-bit product)
            out.append(f"    {{ uint64_t n = {' * '.join(factors[:2]) or '1u'}; "
                       f"const uint64_t c = VK_MAX_ARRAY_BYTES / sizeof({t}); bool fits = n <= c;")
            for x in factors[2:]:
                out.append(f"      fits = vk_count_fits(fits, n, {x}, c); n *= {x};")
            out.append(f"      VK_ASSUME(fits, {hw});")
            out.append(f"      L.{f}_count = n; }}")
            out.append(f"    L.{f} = ({t} *)vk_alloc(L.{f}_count, sizeof({t}));")
            conv = ("v.i != 0" if p.dtype.is_bool else f"({t})v.d" if p.dtype.is_float
                    else f"({t})v.i" if p.dtype.is_signed else f"({t})v.u")
            out.append("#ifdef VERIKERN_REPLAY")
            if self.step.shadowed(p):
                out.append(f"    if ({count} <= VK_MAX_SHADOW) "
                           f"L.{f}_shadow = vk_alloc({count}, sizeof(vk_shadow));")
            out.append(f"    for (size_t j = 0; j < vk_in_array_size({c_string(p.name)}); j++) {{")
            out.append("        uint64_t flat; vk_number v;")
            out.append(f"        vk_in_array_entry({c_string(p.name)}, j, &flat, &v);")
            out.append(f"        if (flat < {count}) L.{f}[flat] = {conv};")
            out.append("    }")
            out.append("#endif")
        return out

    def main(self) -> str:
        out = ["int main(int argc, char **argv) {",
               "    (void)argc; (void)argv;",
               "#ifdef VERIKERN_REPLAY",
               "    vk_harness_open(argc, argv);",
               "#endif"]
        out += self.launch_inputs()
        thr = c_string("the threads exist in the launch")
        out += [
            "    int32_t b1, t1, b2 = -1, t2 = -1; bool has2;",
            "#ifdef VERIKERN_REPLAY",
            '    b1 = (int32_t)vk_in_i64("threads", "block", 0);',
            '    t1 = (int32_t)vk_in_i64("threads", "thread", 0);',
            '    has2 = vk_in_count("threads") > 1;',
            '    if (has2) { b2 = (int32_t)vk_in_i64("threads", "block", 1); '
            't2 = (int32_t)vk_in_i64("threads", "thread", 1); }',
            "#else",
            "    b1 = nondet_int32(); t1 = nondet_int32(); has2 = nondet_bool();",
            "    if (has2) { b2 = nondet_int32(); t2 = nondet_int32(); }",
            "#endif",
            f"    VK_ASSUME(b1 >= 0 && b1 < L.grid_dim && t1 >= 0 && t1 < L.block_dim, {thr});",
            f"    VK_ASSUME(!has2 || (b2 >= 0 && b2 < L.grid_dim && t2 >= 0 && t2 < L.block_dim "
            f"&& (b1 != b2 || t1 != t2)), {thr});",
            "    /* global ids: block * block_dim + thread, below size < 2**31 (no wrap) */",
            "    int64_t g1 = (int64_t)b1 * L.block_dim + t1;",
            "    int64_t g2 = has2 ? (int64_t)b2 * L.block_dim + t2 : -1;",
            f"    VK_ASSUME(g1 < L.size && g2 < L.size, {thr});",
            "#ifndef VERIKERN_REPLAY",
            "    /* T1 runs first. The order of global ids is that of (block, thread) for",
            "       threads of the launch (a theorem), so this is the swap below, stated",
            "       without the multiplexers a swap costs CBMC */",
            "    __CPROVER_assume(!has2 || g1 < g2);",
            "#endif",
            "    if (has2 && (b2 < b1 || (b2 == b1 && t2 < t1))) {   /* T1 runs first */",
            "        int32_t x = b1; b1 = b2; b2 = x; x = t1; t1 = t2; t2 = x;",
            "        int64_t y = g1; g1 = g2; g2 = y;",
            "    }",
            "    vk_race R = {0}; R.same_block = has2 && b1 == b2;",
            "#ifdef VERIKERN_REPLAY",
            *self.replay_schedule(),
            "    vk_ok();",
            "#else",
            "    vk_block S1, S2; vk_block_alloc(&S1); vk_block_alloc(&S2);",
            "    vk_thread th1 = {0}, th2 = {0};",
            "    th1.bidx = b1; th1.tidx = t1; th2.bidx = b2; th2.tidx = t2;",
            "    th1.gid = (int32_t)g1; th2.gid = (int32_t)g2;",
            *self.split_ids(),
            "    if (R.same_block) {",
            INTERVAL_LOOPS[0],
            "            int s1 = vk_step(&L, &S1, &th1, &R, 1);",
            "            int s2 = vk_step(&L, &S1, &th2, &R, 2);",
            "            vk_check_divergence(s1, s2);",
            "            if (s1 < 0) break;",
            "            vk_race_clear(&R);",
            "        }",
            "    } else {",
            *INTERVAL_LOOPS[1:],
            "    }",
            "#endif",
            "    return 0;",
            "}",
        ]
        return "\n".join(out) + "\n"

    def split_ids(self) -> list[str]:
        """CBMC: each thread's global id as q * D + r (D the last launch dim,
        0 <= r < D) without a division, q and r ordered as the ids are (a
        theorem); the kernel's `tid // D` and `tid % D` read them."""
        if not any(split_of_global_id(self.step, ins) for _, ins in self.k.instructions()):
            return []
        d = f"L.dim[{self.k.launch_ndim - 1}]"
        out = []
        for n, g in (("th1", "g1"), ("th2", "g2")):
            out += [f"    {n}.gid_hi = nondet_int32(); {n}.gid_lo = nondet_int32();",
                    f"    __CPROVER_assume({n}.gid_lo >= 0 && {n}.gid_lo < {d} && {n}.gid_hi >= 0 && "
                    f"(int64_t){n}.gid_hi * {d} + {n}.gid_lo == {g});"]
            if n == "th2":
                out[-1] = out[-1].replace("__CPROVER_assume(", "__CPROVER_assume(!has2 || (")[:-2] + "));"
        out.append("    __CPROVER_assume(!has2 || th1.gid_hi < th2.gid_hi || "
                   "(th1.gid_hi == th2.gid_hi && th1.gid_lo < th2.gid_lo));")
        return out

    def independent(self) -> bool:
        """No barrier, no shared memory: threads never wait for each other."""
        return not (self.k.uses_block_features or self.k.shared or self.step.barriers)

    def replay_schedule(self) -> list[str]:
        """T1 and T2 first (alone when threads are independent, else their
        blocks), then every other block in order: a legal schedule in which
        other threads cannot end the run before the counterexample's act."""
        if self.independent():
            return [
                "    vk_run_thread(&L, b1, t1, &R, 1);",
                "    if (has2) vk_run_thread(&L, b2, t2, &R, 2);",
                "    if (vk_failures) vk_ok();   /* exits 1: what T1 and T2 failed is the answer */",
                "    for (int32_t b = 0; b < L.grid_dim; b++) vk_run_block(&L, b, &R, b1, t1, "
                "has2 ? b2 : -1, t2, 1);",
            ]
        return [
            "    vk_run_block(&L, b1, &R, b1, t1, b2, t2, 0);",
            "    if (has2 && b2 != b1) vk_run_block(&L, b2, &R, b1, t1, b2, t2, 0);",
            "    if (vk_failures) vk_ok();   /* exits 1 */",
            "    for (int32_t b = 0; b < L.grid_dim; b++)",
            "        if (b != b1 && !(has2 && b == b2)) vk_run_block(&L, b, &R, b1, t1, b2, t2, 0);",
        ]

    def run_block(self) -> str:
        thread = r"""
static void vk_run_thread(vk_launch *L, int32_t b, int32_t t, vk_race *R, int role) {
    vk_block S; vk_block_alloc(&S);
    vk_thread *th = (vk_thread *)vk_alloc(1u, sizeof(vk_thread));
    th->bidx = b; th->tidx = t; vk_ids(L, th);
    (void)vk_step(L, &S, th, R, role);
    vk_block_free(&S);
    free(th);
}
""" if self.independent() else ""
        return ("\n#ifdef VERIKERN_REPLAY" + f"\n#define VK_LAST_DIM {self.k.launch_ndim - 1}"
                + _GID + thread + r"""
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
""")

    def encode(self) -> CEncoding:
        """The whole file and the loops CBMC sees in it (CEncoding)."""
        k = self.k
        head = (f"/* verikern C encoding of kernel {k.name} ({k.loc}).\n"
                " * CBMC:   cbmc THIS.c --unwinding-assertions --unwind N\n"
                " * replay: cc -std=c11 -DVERIKERN_REPLAY -I<verikern/encoders/c> THIS.c -lm\n"
                " *         ./a.out counterexample.json\n"
                " * Each check's message is '<obligation id> <kind> <file>:<line>:<col>'. */\n")
        before = (head + prelude(uses_float16(k)) + _RACE + self.structs() + contract_helpers(self.step)
                  + self.race_table())
        step = self.step.function()
        headers = {lp.header for lp in k.loops}
        first = before.count("\n") + 1          # the line of vk_step's first line
        loops = [CLoop(f"vk_step.{n}", first + index, label if label in headers else None)
                 for n, (label, index) in enumerate(self.step.back_edges)]
        middle = before + step + self.divergence() + self.shared_alloc() + self.run_block()
        main = self.main()
        at = middle.count("\n") + 1
        lines = main.split("\n")
        for n, statement in enumerate(INTERVAL_LOOPS):
            loops.append(CLoop(f"main.{n}", at + lines.index(statement), None))
        return CEncoding(middle + main, tuple(loops))

    def file(self) -> str:
        return self.encode().text
