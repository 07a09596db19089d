"""The C signature of a built kernel and its boundary checks.

Entry point of kernel `k` (arrays as pointer + int64 shape per logical
dimension, scalars by value, the launch as int64 dims + int32 block_dim):

    int32_t vk_k(<T*|const T*> a, int64_t a_shape0, ..., <scalar> s, ...,
                 int64_t dim0, ..., int32_t block_dim, vk_status* status);

(on a GPU the arrays are device addresses, `uint64_t`). It returns VK_OK or
a VK_ERR_* code; `status` (may be NULL) gets the code, the source line and
column and a message.

Invariant: `check_statements` emits, in this order, every check of
`verikern.backends.launch.prepare_mir_launch` that the proof assumes --
launch dims >= 1 and their product < 2**31, block_dim in 1..1024 (the fixed
one when the kernel declares it), size % block_dim == 0 for kernels with
shared memory or barriers, every shape in [0, 2**31), every array of at most
`max_array_bytes` bytes, non-null and pairwise disjoint arrays, then every
`requires` and array contract (`vk_contract_<k>` evaluates their operands,
backends/llvm/contract.py) -- each failure returns before the kernel runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from verikern.backends.llvm.abi import ParamSlot
from verikern.backends.llvm.contract import WORDS_PER_CONTRACT, contracts
from verikern.mir.facts import writes_memory
from verikern.mir.nodes import ArrayRef, Kernel, RequiresArray
from verikern.mir.types import ScalarType

#: (name, value, meaning) of the status codes; 1..5 are the kernel's own (abi.ERR_*)
STATUS_CODES = (
    ("VK_OK", 0, "the kernel ran to completion"),
    ("VK_ERR_BOUNDS", 1, "an array index was out of bounds (the kernel stopped there)"),
    ("VK_ERR_DIV_ZERO", 2, "an integer division or modulo by zero, or INT_MIN / -1 on "
     "int32/int64 (the kernel stopped there)"),
    ("VK_ERR_ASSERT", 3, "an assert or loop invariant failed"),
    ("VK_ERR_DIVERGENCE", 4, "threads of a block reached different barriers"),
    ("VK_ERR_LAUNCH", 16, "bad launch geometry or arguments; the kernel did not run"),
    ("VK_ERR_CONTRACT", 17, "a requires or array contract does not hold; the kernel did not run"),
    ("VK_ERR_NOMEM", 18, "out of host memory; the kernel did not run"),
    ("VK_ERR_DEVICE", 19, "the CUDA driver failed (message says which call)"),
)

_C_TYPES = {"bool": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
            "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
            "uint32": "uint32_t", "uint64": "uint64_t", "float16": "uint16_t",
            "float32": "float", "float64": "double"}


def c_type(t: ScalarType) -> str:
    """The C type of an element or by-value scalar of type `t` (bool as a
    0/1 byte, float16 as its IEEE bits)."""
    return _C_TYPES[t.name]


def c_string(text: str) -> str:
    """`text` as a C string literal (octal escapes for anything not plain ASCII)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?' or not 32 <= byte < 127:
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def slot_c_type(slot: ParamSlot) -> str:
    """The C type of one leading ABI slot in the args struct."""
    if slot.kind == "array":
        assert slot.scalar_type is not None
        return c_type(slot.scalar_type) + "*"
    if slot.kind == "scalar":
        assert slot.scalar_type is not None
        return c_type(slot.scalar_type)
    return "int32_t"


#: names a kernel parameter cannot have in C: C keywords, the generated
#: code's locals and the C library functions it calls (such a parameter is
#: renamed `u_<name>`, and so is one starting with vk_, VK_ or an underscore)
RESERVED = frozenset("""
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while bool true false NULL
dims size grid args words cerr crc data n lo hi i u v m d sorted first second shared state spill
err rc site gtid errbuf r params path dev module status block_dim dim0 dim1 dim2 dim3
malloc calloc free memcpy qsort aligned_alloc snprintf vsnprintf dlopen dlsym dlclose dlerror
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t uintptr_t size_t
""".split())


def c_names(kernel: Kernel) -> dict[str, str]:
    """The C name of each kernel parameter and of each array's shape
    parameters (`<name>_shape<d>`), all distinct and none reserved."""
    taken: set[str] = set(RESERVED)
    out: dict[str, str] = {}

    def claim(want: str) -> str:
        name = want
        if name in RESERVED or name.startswith(("vk_", "VK_", "_")):
            name = "u_" + name
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    for p in kernel.params:
        out[p.name] = claim(p.name)
    for p in kernel.params:
        if isinstance(p, ArrayRef):
            for d in range(p.ndim):
                out[f"{p.name}.shape{d}"] = claim(f"{out[p.name]}_shape{d}")
    return out


@dataclass(frozen=True)
class CEntry:
    """What the C side knows of one kernel: its C name, parameter
    declarations, the arrays it writes, its parameters' C names (c_names)."""

    kernel: Kernel
    name: str
    params: tuple[str, ...]
    written: frozenset[str]
    device: bool
    names: dict[str, str]

    @property
    def prototype(self) -> str:
        return f"int32_t {self.name}({', '.join(self.params)})"


def c_entry(kernel: Kernel, device: bool = False) -> CEntry:
    """The C entry point of `kernel` (module doc); `device`: arrays are CUDA
    device addresses."""
    written = frozenset(ins.array.name for _, ins in kernel.instructions()
                        if writes_memory(ins) and ins.array.space == "global")
    names = c_names(kernel)
    params: list[str] = []
    for p in kernel.params:
        if isinstance(p, ArrayRef):
            if device:
                params.append(f"uint64_t {names[p.name]}")
            else:
                const = "" if p.name in written else "const "
                params.append(f"{const}{c_type(p.dtype)}* {names[p.name]}")
            params += [f"int64_t {names[f'{p.name}.shape{d}']}" for d in range(p.ndim)]
        else:
            params.append(f"{c_type(p.value.type)} {names[p.name]}")
    params += [f"int64_t dim{d}" for d in range(kernel.launch_ndim)]
    params += ["int32_t block_dim", "vk_status* status"]
    return CEntry(kernel, f"vk_{kernel.name}", tuple(params), written, device, names)


def header_text(guard: str, entries: list[CEntry], comments: dict[str, list[str]],
                extra: tuple[str, ...] = ()) -> str:
    """The header declaring `entries` (plus `extra` prototypes, e.g. the
    CUDA loader's), with `comments[name]` above each."""
    lines = [f"#ifndef {guard}", f"#define {guard}", "/* Written by `verikern build`; do not edit. */",
             "#include <stdint.h>", "", "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
             "#ifndef VK_STATUS_DEFINED", "#define VK_STATUS_DEFINED"]
    for name, value, meaning in STATUS_CODES:
        lines.append(f"#define {name} {value}   /* {meaning} */")
    lines += ["/* The outcome of one call: code, source line and column (0 when none),",
              "   the failing thread and block (-1 when none) and a message. */",
              "typedef struct vk_status {", "    int32_t code;", "    int32_t line;",
              "    int32_t col;", "    int64_t thread;", "    int64_t block;",
              "    char message[512];", "} vk_status;", "#endif", ""]
    lines += list(extra)
    for e in entries:
        lines += ["/* " + c.replace("*/", "* /") + " */" for c in comments.get(e.kernel.name, [])]
        lines += [e.prototype + ";", ""]
    lines += ["#ifdef __cplusplus", "}", "#endif", f"#endif /* {guard} */", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- the checks
COMMON_C = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t vk__fail(vk_status* st, int32_t code, int32_t line, int32_t col,
                        int64_t thread, int64_t block, const char* fmt, ...) {
    if (st) {
        va_list ap;
        st->code = code; st->line = line; st->col = col;
        st->thread = thread; st->block = block;
        va_start(ap, fmt);
        vsnprintf(st->message, sizeof st->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void vk__clear(vk_status* st) {
    if (st) { st->code = 0; st->line = 0; st->col = 0; st->thread = -1; st->block = -1;
              st->message[0] = 0; }
}

/* bytes of an array with `n` dims of lengths `shape` and `inner` elements of
   `item` bytes each, or -1 when above `limit` */
static int64_t vk__bytes(const int64_t* shape, int n, int64_t inner, int64_t item,
                         int64_t limit) {
    unsigned __int128 total = (unsigned __int128)inner * (unsigned __int128)item;
    for (int k = 0; k < n; k++) {
        total *= (unsigned __int128)shape[k];
        if (total > (unsigned __int128)limit) return -1;
    }
    return total > (unsigned __int128)limit ? -1 : (int64_t)total;
}
"""


def _sort_helpers(kernel: Kernel) -> list[str]:
    """qsort comparators for the element types of all_distinct arrays."""
    out = []
    for t in sorted({ins.array.dtype.name for ins in contracts(kernel)
                     if isinstance(ins, RequiresArray) and ins.kind == "all_distinct"}):
        ct = _C_TYPES[t]
        out.append(f"static int vk__cmp_{t}(const void* a, const void* b) {{ "
                   f"{ct} x = *(const {ct}*)a, y = *(const {ct}*)b; "
                   f"return (x > y) - (x < y); }}")
    return out


def support_text(kernels: list[Kernel]) -> str:
    """The static helpers every generated source needs once."""
    seen: set[str] = set()
    helpers = []
    for k in kernels:
        for h in _sort_helpers(k):
            if h not in seen:
                seen.add(h)
                helpers.append(h)
    return COMMON_C + "\n".join(helpers) + "\n"


def _fail(code: str, loc, fmt: str, *args: str) -> str:
    line, col = (loc.line, loc.col) if loc is not None else (0, 0)
    rest = "".join(f", {a}" for a in args)
    return f"return vk__fail(status, {code}, {line}, {col}, -1, -1, {c_string(fmt)}{rest});"


def check_statements(e: CEntry, params: list[ParamSlot], max_array_bytes: int,
                     contract_texts: dict[tuple[int, int], str],
                     host_copy: str | None = None) -> list[str]:
    """C statements (module doc) that fill `struct vk_args_<k> args` and
    return from the entry point on any violation. `host_copy`: for device
    arrays, a C macro name `M(dst, src_device_address, bytes)` returning
    nonzero on failure, used to read arrays whose contents a contract
    constrains."""
    k = e.kernel
    name = k.name
    n = k.launch_ndim
    s: list[str] = ["vk__clear(status);",
                    f"int64_t dims[{n}] = {{{', '.join(f'dim{d}' for d in range(n))}}};",
                    "int64_t size = 1;",
                    f"for (int d = 0; d < {n}; d++) {{",
                    "    if (dims[d] < 1) " + _fail("VK_ERR_LAUNCH", None,
                    f"kernel {name}: launch dimension %d is %lld; every launch dimension must be "
                    f">= 1 (skip the launch instead of launching zero threads)", "d",
                    "(long long)dims[d]"),
                    "    if (dims[d] >= 2147483648LL || (size *= dims[d]) >= 2147483648LL) " +
                    _fail("VK_ERR_LAUNCH", None, f"kernel {name}: the launch has 2**31 threads or "
                          f"more; the total must be below 2**31"),
                    "}",
                    "if (block_dim < 1 || block_dim > 1024) " + _fail(
                        "VK_ERR_LAUNCH", None, f"kernel {name}: block_dim must be in 1..1024, "
                        f"got %d", "(int)block_dim")]
    if k.block_dim is not None:
        s.append(f"if (block_dim != {k.block_dim}) " + _fail(
            "VK_ERR_LAUNCH", k.loc, f"kernel {name}: it is declared with @vk.kernel(block_dim="
            f"{k.block_dim}); launch it with block_dim={k.block_dim}, not %d", "(int)block_dim"))
    if k.uses_block_features:
        s.append("if (size % block_dim != 0) " + _fail(
            "VK_ERR_LAUNCH", None, f"kernel {name}: it uses shared memory or barriers, so the "
            f"launch size (%lld) must be a multiple of block_dim (%d); pad the launch and guard "
            f"the extra threads", "(long long)size", "(int)block_dim"))
    s.append("int64_t grid = (size + block_dim - 1) / block_dim;")
    arrays = [p for p in k.params if isinstance(p, ArrayRef)]
    addr = "(uint64_t)" if e.device else "(uint64_t)(uintptr_t)"
    cn = e.names
    for a in arrays:
        shapes = ", ".join(cn[f"{a.name}.shape{d}"] for d in range(a.ndim))
        inner = 1
        for x in a.inner:
            inner *= x
        s += [f"int64_t vk_shape_{cn[a.name]}[{a.ndim}] = {{{shapes}}};",
              f"for (int d = 0; d < {a.ndim}; d++) if (vk_shape_{cn[a.name]}[d] < 0 || "
              f"vk_shape_{cn[a.name]}[d] >= 2147483648LL) " + _fail(
                  "VK_ERR_LAUNCH", None, f"kernel {name}: argument {a.name} has length %lld in "
                  f"dimension %d; every length must be in 0..2**31-1", f"(long long)vk_shape_{cn[a.name]}[d]", "d"),
              f"int64_t vk_bytes_{cn[a.name]} = vk__bytes(vk_shape_{cn[a.name]}, {a.ndim}, {inner}, "
              f"{a.dtype.np_dtype.itemsize}, {max_array_bytes}LL);",
              f"if (vk_bytes_{cn[a.name]} < 0) " + _fail(
                  "VK_ERR_LAUNCH", None, f"kernel {name}: argument {a.name} is larger than "
                  f"{max_array_bytes} bytes, the array size the proof assumes"),
              f"if (vk_bytes_{cn[a.name]} > 0 && !{cn[a.name]}) " + _fail(
                  "VK_ERR_LAUNCH", None, f"kernel {name}: argument {a.name} is NULL but has "
                  f"%lld bytes", f"(long long)vk_bytes_{cn[a.name]}")]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            s.append(f"if (vk_bytes_{cn[a.name]} > 0 && vk_bytes_{cn[b.name]} > 0 && {addr}{cn[a.name]} < "
                     f"{addr}{cn[b.name]} + (uint64_t)vk_bytes_{cn[b.name]} && {addr}{cn[b.name]} < "
                     f"{addr}{cn[a.name]} + (uint64_t)vk_bytes_{cn[a.name]}) " + _fail(
                         "VK_ERR_LAUNCH", None, f"kernel {name}: arguments {a.name} and {b.name} "
                         f"overlap in memory; array arguments of one launch must be distinct"))
    fields = []
    for slot in params:
        if slot.kind == "array":
            fields.append(f"({slot_c_type(slot)})(uintptr_t){cn[slot.name]}")
        elif slot.kind == "shape":
            fields.append(f"(int32_t){cn[f'{slot.name}.shape{slot.dim}']}")
        elif slot.kind == "scalar":
            fields.append(cn[slot.name])
        elif slot.kind == "launch_dim":
            fields.append(f"(int32_t)dims[{slot.dim}]")
        else:
            fields.append("(int32_t)size")
    fields += ["block_dim", "(int32_t)grid"]
    s.append(f"struct vk_args_{name} args = {{{', '.join(fields)}}};")
    s += _contract_checks(e, contract_texts, host_copy)
    return s


def _contract_checks(e: CEntry, texts: dict[tuple[int, int], str],
                     host_copy: str | None) -> list[str]:
    k = e.kernel
    name = k.name
    cn = e.names
    cs = contracts(k)
    if not cs:
        return []
    s = [f"int64_t words[{WORDS_PER_CONTRACT * len(cs)}];", "int64_t cerr[8] = {0};",
         f"int32_t crc = vk_contract_{name}(&args, words, cerr);",
         "if (crc) " + _fail("VK_ERR_CONTRACT", k.loc, f"kernel {name}: evaluating a "
                                                      f"precondition failed with status %d",
                             "(int)crc")]
    for j, c in enumerate(cs):
        text = texts.get((c.loc.line, c.loc.col), "")
        where = f"{c.loc}" + (f": `{text}`" if text else "")
        w = WORDS_PER_CONTRACT * j
        if not isinstance(c, RequiresArray):
            s.append(f"if (!words[{w}]) " + _fail(
                "VK_ERR_CONTRACT", c.loc, f"kernel {name}: this launch breaks the precondition "
                f"at %s (block_dim %d); change the launch or its arguments so it holds",
                c_string(where), "(int)block_dim"))
            continue
        a = c.array
        ct = c_type(a.dtype)
        count = f"(vk_bytes_{cn[a.name]} / {a.dtype.np_dtype.itemsize})"
        s.append("{")
        if host_copy is None:
            s.append(f"    const {ct}* data = (const {ct}*){cn[a.name]};")
        else:
            s += [f"    {ct}* data = ({ct}*)malloc(vk_bytes_{cn[a.name]} ? vk_bytes_{cn[a.name]} : 1);",
                  "    if (!data) " + _fail("VK_ERR_NOMEM", c.loc, "out of host memory"),
                  f"    if (vk_bytes_{cn[a.name]} && {host_copy}(data, {cn[a.name]}, vk_bytes_{cn[a.name]})) "
                  f"{{ free(data); " + _fail("VK_ERR_DEVICE", c.loc, f"kernel {name}: reading "
                                                                     f"{a.name} to check its contract failed") + " }"]
        release = "free((void*)data); " if host_copy is not None else ""
        fmt = "%lld" if a.dtype.is_signed else "%llu"
        cast = "(long long)" if a.dtype.is_signed else "(unsigned long long)"
        s.append(f"    int64_t n = {count};")
        if c.kind == "all_in_range":
            s += [f"    {ct} lo = ({ct})words[{w}], hi = ({ct})words[{w + 1}];",
                  "    for (int64_t i = 0; i < n; i++) if (!(data[i] >= lo && data[i] < hi)) "
                  f"{{ {ct} v = data[i]; {release}" + _fail(
                      "VK_ERR_CONTRACT", c.loc, f"kernel {name}: argument {a.name} breaks "
                      f"all_in_range({fmt}, {fmt}) at %s: element %lld (flat) is {fmt}; pass an "
                      f"array whose elements are all in range", f"{cast}lo", f"{cast}hi",
                      c_string(where), "(long long)i", f"{cast}v") + " }"]
        elif c.kind == "all_sorted":
            s += ["    for (int64_t i = 0; i + 1 < n; i++) if (data[i + 1] < data[i]) "
                  f"{{ {ct} u = data[i], v = data[i + 1]; {release}" + _fail(
                      "VK_ERR_CONTRACT", c.loc, f"kernel {name}: argument {a.name} breaks "
                      f"all_sorted at %s: element %lld is {fmt} but element %lld is {fmt}; pass a "
                      f"non-decreasing array", c_string(where), "(long long)i", f"{cast}u",
                      "(long long)(i + 1)", f"{cast}v") + " }"]
        elif c.kind == "all_distinct":
            s += [f"    {ct}* sorted = ({ct}*)malloc(n ? (size_t)n * sizeof({ct}) : 1);",
                  f"    if (!sorted) {{ {release}" + _fail("VK_ERR_NOMEM", c.loc,
                                                         "out of host memory") + " }",
                  f"    memcpy(sorted, data, (size_t)n * sizeof({ct}));",
                  f"    qsort(sorted, (size_t)n, sizeof({ct}), vk__cmp_{a.dtype.name});",
                  "    for (int64_t i = 0; i + 1 < n; i++) if (sorted[i] == sorted[i + 1]) {",
                  f"        {ct} v = sorted[i]; int64_t first = -1, second = -1;",
                  "        for (int64_t m = 0; m < n; m++) if (data[m] == v) "
                  "{ if (first < 0) first = m; else { second = m; break; } }",
                  f"        free(sorted); {release}" + _fail(
                      "VK_ERR_CONTRACT", c.loc, f"kernel {name}: argument {a.name} breaks "
                      f"all_distinct at %s: elements %lld and %lld (flat) are both {fmt}; pass "
                      f"an array without repeated values", c_string(where), "(long long)first",
                      "(long long)second", f"{cast}v"),
                  "    }", "    free(sorted);"]
        else:
            raise ValueError(f"{c.loc}: unknown array contract {c.kind!r}")
        if host_copy is not None:
            s.append("    free(data);")
        s.append("}")
    return s


def args_struct_text(name: str, params: list[ParamSlot]) -> str:
    """The C struct laid out as backends/llvm/kernel_cpu.args_struct_type."""
    fields = [f"    {slot_c_type(p)} f{k};" for k, p in enumerate(params)]
    return "\n".join([f"struct vk_args_{name} {{"] + fields +
                     ["    int32_t block_dim;", "    int32_t grid_dim;", "};"])
