"""GPU architecture names accepted by the PTX backend.

Invariant: `check_arch` returns a name that (1) is `sm_<N>` with an optional
`a`/`f` suffix, (2) has N >= 75 (CUDA 13's ptxas no longer knows sm_70 and
older), and (3) the NVPTX backend of the installed LLVM recognises; anything
else raises `ArchError` with one sentence saying what to pass instead.
"""
from __future__ import annotations

import functools
import os
import re
import tempfile
import threading

from verikern.errors import VerikernError

MIN_SM = 75
SUPPORTED_RANGE = "sm_75 through sm_100 (and newer names this LLVM knows)"
NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
_ARCH_RE = re.compile(r"^sm_(\d+)([af]?)$")
_STDERR_LOCK = threading.Lock()


class ArchError(VerikernError):
    """An unsupported or unknown GPU architecture name."""


def sm_number(arch: str) -> int:
    """75 for "sm_75", 90 for "sm_90a"."""
    m = _ARCH_RE.match(arch)
    if not m:
        raise ArchError(f"{arch!r} is not a GPU architecture name: pass one like 'sm_80' "
                        f"({SUPPORTED_RANGE})")
    return int(m.group(1))


def check_arch(arch: str) -> str:
    """The validated architecture name (see the module invariant)."""
    arch = str(arch).strip().lower()
    if re.fullmatch(r"\d+[af]?", arch):
        arch = "sm_" + arch
    number = sm_number(arch)
    if number < MIN_SM:
        raise ArchError(f"{arch} is not supported: CUDA 13's ptxas dropped sm_70 and older; "
                        f"use sm_75 or newer (e.g. sm_80)")
    if not llvm_knows_arch(arch):
        raise ArchError(f"the NVPTX backend of LLVM {llvm_version()} (llvmlite) does not know "
                        f"{arch}; use one of {SUPPORTED_RANGE}")
    return arch


def nvptx_target():
    """The llvmlite NVPTX Target (initialising LLVM's targets once)."""
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    _init_llvm_targets()
    return llvm.Target.from_triple(NVPTX_TRIPLE)


@functools.lru_cache(maxsize=1)
def _init_llvm_targets() -> None:
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def llvm_version() -> str:
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    return ".".join(str(x) for x in llvm.llvm_version_info)


@functools.lru_cache(maxsize=64)
def llvm_knows_arch(arch: str) -> bool:
    """Whether LLVM's NVPTX backend recognises `arch` as a processor.

    LLVM reports an unknown processor only as a warning on the C stderr
    ("'sm_999' is not a recognized processor for this target"), so the
    probe creates a target machine with file descriptor 2 redirected and
    reads what LLVM wrote there.
    """
    target = nvptx_target()
    with _STDERR_LOCK, tempfile.TemporaryFile(mode="w+b") as captured:
        saved = os.dup(2)
        try:
            os.dup2(captured.fileno(), 2)
            tm = target.create_target_machine(cpu=arch)
            # Creating the subtarget happens at first use; emit a trivial module.
            import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

            mod = llvm.parse_assembly(f'target triple = "{NVPTX_TRIPLE}"\n')
            tm.emit_assembly(mod)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        text = captured.read().decode("utf-8", "replace")
    return "not a recognized processor" not in text
