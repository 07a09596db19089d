"""`verikern build --target sm_XY`: per kernel a PTX module (and a cubin
where ptxas is present), the host object of the kernels' contract functions,
and the C loader (backends/cabi/cuda.py) linked into `lib<L>_cuda.so`.

Invariant: the PTX is always assembled with ptxas when ptxas is found, and
a module ptxas rejects fails the build (BuildError with ptxas's words);
without ptxas the PTX is written for the driver to JIT and the manifest says
that no cubin was made.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from llvmlite import ir

from verikern.app.build import (
    BuildError, BuildOptions, BuildResult, host_object, pic_host_machine, run_cc,
)
from verikern.app.build_proofs import ProvedKernel
from verikern.backends.cabi.cuda import cuda_source, loader_prototypes
from verikern.backends.cabi.signature import CEntry, c_entry, header_text
from verikern.backends.llvm import build as lower_kernel
from verikern.backends.llvm.contract import add_contract_function
from verikern.backends.ptx import (
    ArchError, PtxasNotFoundError, assemble, check_arch, compile_llvm_ir, ptxas_version,
)


def build_cuda(src: Path, out: Path, lib: str, proved: list[ProvedKernel], texts: dict,
               opts: BuildOptions, result: BuildResult, toolchain: dict) -> list[CEntry]:
    """Write the PTX, cubins, loader and its header; returns the C entries."""
    try:
        arch = check_arch(opts.target)
    except ArchError as err:
        raise BuildError(str(err)) from None
    version = None
    try:
        version = ptxas_version()
    except PtxasNotFoundError:
        version = None
    toolchain["ptxas"] = ".".join(map(str, version)) if version else "not found"
    tm = pic_host_machine()
    items = []
    host_modules = []
    for p in proved:
        k = p.kernel
        lowered = lower_kernel(k, "nvptx", None, unchecked=p.unchecked)
        ptx = compile_llvm_ir(str(lowered.module), arch, name=k.name)
        ptx_path = out / f"{k.name}.ptx"
        ptx_path.write_text(ptx)
        result.files.append(ptx_path)
        module_file = ptx_path.name
        if version is not None:
            assembled = assemble(ptx, arch)
            if not assembled.ok or assembled.cubin is None:
                raise BuildError(f"ptxas rejected the PTX of kernel {k.name} for {arch}:\n"
                                 f"{assembled.log.strip()[:4000]}")
            cubin = out / f"{k.name}.cubin"
            cubin.write_bytes(assembled.cubin)
            result.files.append(cubin)
            module_file = cubin.name
        host = ir.Module(name=f"verikern.contract.{k.name}")
        host.triple = tm.triple
        add_contract_function(k, host, bool(k.fast_math))
        host_modules.append(host)
        items.append((c_entry(k, device=True), lowered, module_file))
    entries = [e for e, _, _ in items]
    name = f"{lib}_cuda"
    header = out / f"{name}.h"
    header.write_text(header_text(f"VK_{name.upper()}_H", entries,
                                  {p.kernel.name: list(p.header_comment) for p in proved},
                                  loader_prototypes(lib)))
    loader = out / f"{name}.c"
    loader.write_text(cuda_source(lib, header.name, str(src), items, proved[0].max_array_bytes,
                                  texts))
    so = out / f"lib{name}.so"
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / f"{name}_contracts.o"
        host_object(host_modules, tm, obj)
        run_cc(opts.cc, ["-std=gnu11", "-O2", "-fPIC", "-shared", "-o", str(so), str(loader),
                          str(obj), "-ldl"])
    result.files += [header, loader, so]
    toolchain["arch"] = arch
    return entries
