"""The kernel a property-based test is about: its MIR, its file, and (when
the user's module was imported) the Python kernel object.

Invariant: `KernelUnderTest.mir` is a compiled `verikern.mir.Kernel`; `obj`
is the `@vk.kernel` handle or Warp kernel object it came from, or None when
the kernel was compiled from its file without executing it (then kernels
that read constants from the code around them cannot be launched, and the
`warp` backend is unavailable).
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verikern.errors import VerikernError
from verikern.mir.nodes import Kernel
from verikern.mir.params import captured_params
from verikern.runtime import _kernel_of
from verikern.frontend import compile_file


class TestingError(VerikernError):
    """A kernel cannot be tested as asked (missing file or kernel, compile error, bad option)."""

    __test__ = False   # not a pytest test class


@dataclass(frozen=True, eq=False)
class KernelUnderTest:
    """One kernel: `mir` (compiled), `file` (its source), `obj` (the Python
    kernel object, or None when the file was only read)."""

    mir: Kernel
    file: str
    obj: Any = None

    @property
    def name(self) -> str:
        return self.mir.name

    @property
    def line(self) -> int:
        return self.mir.loc.line

    @property
    def where(self) -> str:
        """`file:line` of the kernel's definition."""
        return f"{self.file}:{self.line}"

    @property
    def captured(self) -> tuple[str, ...]:
        """MIR parameters holding constants read from the code around the kernel."""
        return tuple(p.name for p in captured_params(self.mir))


def kernel_under_test(kernel) -> KernelUnderTest:
    """`kernel` (a @vk.kernel handle, a Warp kernel object, a MIR Kernel or a
    KernelUnderTest) as a KernelUnderTest; KernelError if it does not compile."""
    if isinstance(kernel, KernelUnderTest):
        return kernel
    if isinstance(kernel, Kernel):
        return KernelUnderTest(kernel, kernel.loc.file)

    mir = _kernel_of(kernel)
    return KernelUnderTest(mir, mir.loc.file, kernel)


def compile_kernels(file, kernel_names=None) -> list[KernelUnderTest]:
    """Every kernel of `file` (or those named), compiled from its source
    without executing it. Raises TestingError naming the file (and the
    compile error at file:line:col)."""

    path = Path(file)
    if not path.is_file():
        raise TestingError(f"{file}: no such file")
    module = compile_file(path)
    names = [k.name for k in module.kernels]
    wanted = names if not kernel_names else list(kernel_names)
    errors = "\n".join(e.render() if hasattr(e, "render") else str(e) for e in module.errors)
    if not names:
        raise TestingError((errors + "\n" if errors else "") + f"{file}: no kernels found")
    out = []
    for name in wanted:
        if name not in names:
            raise TestingError((errors + "\n" if errors else "") + f"{file}: no kernel named "
                               f"{name!r} (kernels: {', '.join(names)})")
        result = module.kernel(name)
        if result.error is not None or result.mir is None:
            raise TestingError(result.error.render() if result.error is not None
                               else f"{file}: kernel {name} did not compile")
        out.append(KernelUnderTest(result.mir, str(file)))
    return out


_IMPORTED: dict[str, Any] = {}


def import_kernel_module(file):
    """Import (execute) the user's kernel file as a module of its own, once per
    path. Only `verikern fuzz` with the `warp` backend (or kernels reading
    constants from their module) does this; `verikern prove` never does."""
    path = str(Path(file).resolve())
    if path not in _IMPORTED:
        name = f"verikern_fuzz_{hashlib.sha1(path.encode()).hexdigest()[:12]}_{Path(path).stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise TestingError(f"{file}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module           # dataclasses and Warp look modules up there
        parent = str(Path(path).parent)
        added = parent not in sys.path
        if added:
            sys.path.insert(0, parent)       # the file's sibling imports work as in a script
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise TestingError(f"{file}: importing it failed: {type(exc).__name__}: {exc}") from exc
        finally:
            if added:
                sys.path.remove(parent)
        _IMPORTED[path] = module
    return _IMPORTED[path]


def with_object(target: KernelUnderTest) -> KernelUnderTest:
    """`target` with its Python kernel object, importing its file if needed."""
    if target.obj is not None:
        return target
    module = import_kernel_module(target.file)
    obj = getattr(module, target.name, None)
    if obj is None:
        raise TestingError(f"{target.where}: kernel {target.name} is not a module-level name "
                           f"of {target.file} after importing it")
    return KernelUnderTest(target.mir, target.file, obj)
