"""The C source of a CPU library's entry points: for each kernel, the
boundary checks (signature.check_statements), then `vk_entry_<k>` (the LLVM
code, backends/llvm/kernel_cpu.py) over every block on the calling thread,
then the error status decoded into a message naming the source location.

Invariant: the generated function returns the kernel's own ERR_* code
(1..4, the same numbers as backends/llvm/abi.py) exactly when the LLVM code
reported one, with the failing site's line and column; the scratch buffers
it allocates are freed on every path.
"""
from __future__ import annotations

from verikern.backends.llvm.abi import ERR_BOUNDS, ERR_DIVERGENCE, LoweredKernel
from verikern.backends.llvm.contract import contracts

from .signature import CEntry, args_struct_text, c_string, check_statements, support_text


def site_table(name: str, lowered_sites) -> list[str]:
    """The static table of a kernel's check sites: line, col, message, array."""
    rows = [f"    {{{s.loc.line}, {s.loc.col}, {c_string(s.message)}, {c_string(s.array)}}},"
            for s in lowered_sites] or ["    {0, 0, \"\", \"\"},"]
    return [f"static const vk__site vk__sites_{name}[] = {{"] + rows + ["};"]


SITE_STRUCT = ("typedef struct vk__site { int32_t line, col; const char* message; "
               "const char* array; } vk__site;")


def decode_statements(name: str, file: str, err: str, rc: str) -> list[str]:
    """C statements turning a nonzero kernel status (`rc`, words `err`) into
    the return value and message."""
    f = c_string(file)
    return [
        f"if ({rc} == {ERR_DIVERGENCE}) return vk__fail(status, {rc}, 0, 0, -1, {err}[3], "
        f"\"%s: barrier divergence in block %lld of kernel {name}: its threads reached "
        f"different barriers\", {f}, (long long){err}[3]);",
        f"{{ const vk__site* site = &vk__sites_{name}[{err}[1]];",
        f"  long long gtid = (long long){err}[3] * block_dim + (long long){err}[2];",
        f"  if ({rc} == {ERR_BOUNDS}) return vk__fail(status, {rc}, site->line, site->col, "
        f"{err}[2], {err}[3], \"%s:%d:%d: index %lld is out of bounds in dimension %lld of "
        f"array '%s' (length %lld): thread %lld of block %lld (global thread %lld) in kernel "
        f"{name}\", {f}, site->line, site->col, (long long){err}[5], (long long){err}[4], "
        f"site->array, (long long){err}[6], (long long){err}[2], (long long){err}[3], gtid);",
        f"  return vk__fail(status, {rc}, site->line, site->col, {err}[2], {err}[3], "
        f"\"%s:%d:%d: %s: thread %lld of block %lld (global thread %lld) in kernel {name}\", "
        f"{f}, site->line, site->col, site->message, (long long){err}[2], (long long){err}[3], "
        f"gtid); }}",
    ]


def cpu_source(header: str, file: str, items: list[tuple[CEntry, LoweredKernel]],
               max_array_bytes: int, contract_texts: dict[tuple[int, int], str]) -> str:
    """The C wrapper source of a CPU library (`header`: its header's file name)."""
    out = [f'/* Written by `verikern build` from {file}; do not edit. */',
           f'#include "{header}"', support_text([e.kernel for e, _ in items]), SITE_STRUCT, ""]
    for e, lk in items:
        name = e.kernel.name
        out += [args_struct_text(name, lk.params),
                f"int32_t vk_entry_{name}(void* args, int32_t begin, int32_t end, void* shared, "
                f"int32_t* state, int64_t* spill, int64_t* err);"]
        if contracts(e.kernel):
            out.append(f"int32_t vk_contract_{name}(void* args, int64_t* out, int64_t* err);")
        out += site_table(name, lk.sites)
        out += [e.prototype + " {"]
        body = check_statements(e, lk.params, max_array_bytes, contract_texts)
        body += [
            f"void* shared = aligned_alloc(16, {max(lk.shared_bytes, 16)});",
            "int32_t* state = (int32_t*)calloc((size_t)block_dim, sizeof(int32_t));",
            f"int64_t* spill = (int64_t*)calloc((size_t){max(lk.spill_slots, 1)} * "
            f"(size_t)block_dim, sizeof(int64_t));",
            "int64_t err[8] = {0};",
            "if (!shared || !state || !spill) { free(shared); free(state); free(spill); "
            "return vk__fail(status, VK_ERR_NOMEM, 0, 0, -1, -1, \"out of host memory\"); }",
            f"int32_t rc = vk_entry_{name}(&args, 0, (int32_t)grid, shared, state, spill, err);",
            "free(shared); free(state); free(spill);",
            "if (rc == 0) return VK_OK;",
        ]
        body += decode_statements(name, file, "err", "rc")
        out += ["    " + line for line in body] + ["}", ""]
    return "\n".join(out)

