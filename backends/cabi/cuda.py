"""The C loader of a GPU build: the CUDA driver API (opened with dlopen, so
the loader compiles and links with a plain C compiler, no CUDA toolkit),
one module per kernel (its cubin, or its PTX for the driver to JIT), and a
C entry point per kernel that checks the launch (signature.check_statements,
reading contract-constrained arrays back from the device), launches, and
decodes the kernel's error status.

Functions of library `L` besides the kernels' `vk_<k>`:

    int32_t vk_L_load(const char* dir, int32_t device, vk_status* status);
    int32_t vk_L_alloc(uint64_t* address, uint64_t bytes, vk_status* status);
    int32_t vk_L_upload(uint64_t dst, const void* src, uint64_t bytes, vk_status* status);
    int32_t vk_L_download(void* dst, uint64_t src, uint64_t bytes, vk_status* status);
    void vk_L_free(uint64_t address);

Invariant: every CUDA driver failure is VK_ERR_DEVICE with the call's name
and the driver's message; a kernel entry point called before `vk_L_load`
succeeded returns VK_ERR_DEVICE without touching the device; the error
buffer it allocates is freed on every path after the allocation.
"""
from __future__ import annotations

from verikern.backends.llvm.abi import ERR_WORDS, LoweredKernel
from verikern.backends.llvm.contract import contracts

from .cpu import SITE_STRUCT, decode_statements, site_table
from .signature import CEntry, args_struct_text, c_string, check_statements, support_text

DRIVER_C = r"""
#include <dlfcn.h>
typedef int vk__CUresult;
typedef void* vk__ptr;
static struct {
    void* lib;
    vk__ptr ctx;
    vk__CUresult (*Init)(unsigned);
    vk__CUresult (*DeviceGet)(int*, int);
    vk__CUresult (*DevicePrimaryCtxRetain)(vk__ptr*, int);
    vk__CUresult (*CtxSetCurrent)(vk__ptr);
    vk__CUresult (*ModuleLoad)(vk__ptr*, const char*);
    vk__CUresult (*ModuleGetFunction)(vk__ptr*, vk__ptr, const char*);
    vk__CUresult (*LaunchKernel)(vk__ptr, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, vk__ptr, void**, void**);
    vk__CUresult (*CtxSynchronize)(void);
    vk__CUresult (*MemAlloc)(uint64_t*, size_t);
    vk__CUresult (*MemFree)(uint64_t);
    vk__CUresult (*MemcpyDtoH)(void*, uint64_t, size_t);
    vk__CUresult (*MemcpyHtoD)(uint64_t, const void*, size_t);
    vk__CUresult (*GetErrorString)(vk__CUresult, const char**);
} vk__cu;

static int32_t vk__cu_fail(vk_status* st, const char* call, vk__CUresult r) {
    const char* text = "unknown error";
    if (vk__cu.GetErrorString) vk__cu.GetErrorString(r, &text);
    return vk__fail(st, VK_ERR_DEVICE, 0, 0, -1, -1, "CUDA driver call %s failed: %s (%d)",
                    call, text ? text : "unknown error", (int)r);
}

#define VK__CU(st, call, args) do { vk__CUresult r_ = vk__cu.call args; \
    if (r_ != 0) return vk__cu_fail(st, #call, r_); } while (0)

static int vk__dtoh(void* dst, uint64_t src, int64_t bytes) {
    return vk__cu.MemcpyDtoH(dst, src, (size_t)bytes) != 0;
}

static int32_t vk__open_driver(vk_status* st) {
    if (vk__cu.lib) return VK_OK;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return vk__fail(st, VK_ERR_DEVICE, 0, 0, -1, -1,
                              "cannot load the CUDA driver (libcuda.so.1): %s; install the "
                              "NVIDIA driver", dlerror());
#define VK__SYM(field, name) do { *(void**)&vk__cu.field = dlsym(lib, name); \
    if (!vk__cu.field) { dlclose(lib); return vk__fail(st, VK_ERR_DEVICE, 0, 0, -1, -1, \
        "the CUDA driver has no %s", name); } } while (0)
    VK__SYM(Init, "cuInit");
    VK__SYM(DeviceGet, "cuDeviceGet");
    VK__SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    VK__SYM(CtxSetCurrent, "cuCtxSetCurrent");
    VK__SYM(ModuleLoad, "cuModuleLoad");
    VK__SYM(ModuleGetFunction, "cuModuleGetFunction");
    VK__SYM(LaunchKernel, "cuLaunchKernel");
    VK__SYM(CtxSynchronize, "cuCtxSynchronize");
    VK__SYM(MemAlloc, "cuMemAlloc_v2");
    VK__SYM(MemFree, "cuMemFree_v2");
    VK__SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
    VK__SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
    VK__SYM(GetErrorString, "cuGetErrorString");
#undef VK__SYM
    vk__cu.lib = lib;
    return VK_OK;
}
"""


def _path_statement(lib: str, file: str) -> str:
    return (f"if (snprintf(path, sizeof path, \"%s/%s\", dir, {c_string(file)}) >= "
            f"(int)sizeof path) return vk__fail(status, VK_ERR_LAUNCH, 0, 0, -1, -1, "
            f"\"vk_{lib}_load: the folder name is too long\");")


def _library_functions(lib: str, entries: list[tuple[CEntry, str]]) -> list[str]:
    """vk_L_load and the memory helpers. A kernel's module is its cubin when
    the build made one, else its PTX; a cubin the device cannot run (another
    architecture) falls back to the PTX, which the driver compiles."""
    loads = []
    for e, module_file in entries:
        name = e.kernel.name
        ptx = f"{name}.ptx"
        loads += ["    {", "        vk__ptr module = 0;",
                  "        " + _path_statement(lib, module_file),
                  "        vk__CUresult r = vk__cu.ModuleLoad(&module, path);"]
        if module_file != ptx:
            loads += ["        if (r != 0) {", "            " + _path_statement(lib, ptx),
                      "            r = vk__cu.ModuleLoad(&module, path);", "        }"]
        loads += ["        if (r != 0) return vk__cu_fail(status, \"cuModuleLoad\", r);",
                  f"        VK__CU(status, ModuleGetFunction, (&vk__fn_{name}, module, "
                  f"{c_string(name)}));", "    }"]
    return [
        f"int32_t vk_{lib}_load(const char* dir, int32_t device, vk_status* status) {{",
        "    char path[4096];",
        "    int dev = 0;",
        "    vk__clear(status);",
        "    int32_t rc = vk__open_driver(status);",
        "    if (rc) return rc;",
        "    VK__CU(status, Init, (0));",
        "    VK__CU(status, DeviceGet, (&dev, device));",
        "    VK__CU(status, DevicePrimaryCtxRetain, (&vk__cu.ctx, dev));",
        "    VK__CU(status, CtxSetCurrent, (vk__cu.ctx));",
        *loads,
        "    return VK_OK;",
        "}",
        f"int32_t vk_{lib}_alloc(uint64_t* address, uint64_t bytes, vk_status* status) {{",
        "    vk__clear(status);",
        f"    if (!vk__cu.ctx) return vk__fail(status, VK_ERR_DEVICE, 0, 0, -1, -1, "
        f"\"call vk_{lib}_load first\");",
        "    VK__CU(status, MemAlloc, (address, (size_t)(bytes ? bytes : 1)));",
        "    return VK_OK;",
        "}",
        f"int32_t vk_{lib}_upload(uint64_t dst, const void* src, uint64_t bytes, "
        f"vk_status* status) {{",
        "    vk__clear(status);",
        f"    if (!vk__cu.ctx) return vk__fail(status, VK_ERR_DEVICE, 0, 0, -1, -1, "
        f"\"call vk_{lib}_load first\");",
        "    if (bytes) VK__CU(status, MemcpyHtoD, (dst, src, (size_t)bytes));",
        "    return VK_OK;",
        "}",
        f"int32_t vk_{lib}_download(void* dst, uint64_t src, uint64_t bytes, "
        f"vk_status* status) {{",
        "    vk__clear(status);",
        f"    if (!vk__cu.ctx) return vk__fail(status, VK_ERR_DEVICE, 0, 0, -1, -1, "
        f"\"call vk_{lib}_load first\");",
        "    if (bytes) VK__CU(status, MemcpyDtoH, (dst, src, (size_t)bytes));",
        "    return VK_OK;",
        "}",
        f"void vk_{lib}_free(uint64_t address) {{ if (vk__cu.ctx && address) "
        f"vk__cu.MemFree(address); }}",
    ]


def loader_prototypes(lib: str) -> tuple[str, ...]:
    """The header lines declaring vk_L_load and the memory helpers."""
    return (
        "/* Load the kernels' modules from folder `dir` onto CUDA device `device`. */",
        f"int32_t vk_{lib}_load(const char* dir, int32_t device, vk_status* status);",
        f"int32_t vk_{lib}_alloc(uint64_t* address, uint64_t bytes, vk_status* status);",
        f"int32_t vk_{lib}_upload(uint64_t dst, const void* src, uint64_t bytes, "
        f"vk_status* status);",
        f"int32_t vk_{lib}_download(void* dst, uint64_t src, uint64_t bytes, vk_status* status);",
        f"void vk_{lib}_free(uint64_t address);",
        "",
    )


def cuda_source(lib: str, header: str, file: str,
                items: list[tuple[CEntry, LoweredKernel, str]], max_array_bytes: int,
                contract_texts: dict[tuple[int, int], str]) -> str:
    """The loader's C source; `items`: (entry, nvptx lowering, module file name)."""
    out = [f"/* Written by `verikern build` from {file}; do not edit. */",
           f'#include "{header}"', support_text([e.kernel for e, _, _ in items]), SITE_STRUCT,
           DRIVER_C]
    for e, _, _ in items:
        out.append(f"static vk__ptr vk__fn_{e.kernel.name} = 0;")
    out += _library_functions(lib, [(e, f) for e, _, f in items])
    for e, lk, _ in items:
        name = e.kernel.name
        out += [args_struct_text(name, lk.params)]
        if contracts(e.kernel):
            out.append(f"int32_t vk_contract_{name}(void* args, int64_t* out, int64_t* err);")
        out += site_table(name, lk.sites)
        out += [e.prototype + " {"]
        body = check_statements(e, lk.params, max_array_bytes, contract_texts,
                                host_copy="vk__dtoh")
        pointers = [f"&args.f{k}" for k in range(len(lk.params))] + ["&errbuf"]
        body += [
            f"if (!vk__fn_{name}) return vk__fail(status, VK_ERR_DEVICE, 0, 0, -1, -1, "
            f"\"kernel {name}: call vk_{lib}_load first\");",
            f"int64_t err[{ERR_WORDS}] = {{0}};",
            "uint64_t errbuf = 0;",
            "VK__CU(status, MemAlloc, (&errbuf, sizeof err));",
            "vk__CUresult r = vk__cu.MemcpyHtoD(errbuf, err, sizeof err);",
            f"void* params[] = {{{', '.join(pointers)}}};",
            f"if (r == 0) r = vk__cu.LaunchKernel(vk__fn_{name}, (unsigned)grid, 1, 1, "
            f"(unsigned)block_dim, 1, 1, 0, 0, params, 0);",
            "if (r == 0) r = vk__cu.CtxSynchronize();",
            "if (r == 0) r = vk__cu.MemcpyDtoH(err, errbuf, sizeof err);",
            "vk__cu.MemFree(errbuf);",
            f"if (r != 0) return vk__cu_fail(status, \"launching kernel {name}\", r);",
            "int32_t rc = (int32_t)err[0];",
            "if (rc == 0) return VK_OK;",
        ]
        body += decode_statements(name, file, "err", "rc")
        out += ["    " + line for line in body] + ["}", ""]
    return "\n".join(out)
