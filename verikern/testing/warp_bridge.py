"""The `warp` backend: run a kernel under real warp-lang on its CPU device.

A Warp kernel object (`@wp.kernel`) runs as it is. A `@vk.kernel` runs as
the same Python function handed to Warp, with the `verikern` module seen
through Warp's names (`vk.tid` is `wp.tid`, `vk.float32` is `wp.float32`,
`vk.array(dtype=..., ndim=...)` is `wp.array(...)`), its `@vk.func`s made
Warp functions the same way, and the in-body contracts `vk.requires(...)`
and `vk.invariant(...)` removed (Warp has no contracts; they only restrict
the launches generated). This needs the kernel's Python function, so the
user's file is imported (executed).

Invariant: a kernel that uses block-level features (shared arrays,
barriers, `thread_idx`/`block_idx`/`block_dim`/`grid_dim`) or
`launch_dim` in its body is not valid Warp and is reported so, never
approximated; any other construct Warp rejects is reported with Warp's own
message when the kernel is built, before any launch is compared.
"""
from __future__ import annotations

import ast
import hashlib
import types

import numpy as np

from verikern.mir.nodes import Barrier
from verikern.mir.params import user_params

from .compare import RunError
from .strategies import Launch
from .target import KernelUnderTest, TestingError, with_object
import verikern.lang as lang
from verikern.lang import ArrayType, ScalarTypeHandle, VectorTypeHandle
import verikern
from verikern.lang import FuncHandle

_NOT_WARP_SPECIALS = ("thread_idx", "block_idx", "block_dim", "grid_dim", "launch_dim")
_BUILT: dict[tuple[str, str], object] = {}
_ANY = object()   # _StripContracts: any `X.requires(...)`


def _warp():
    import warp as wp  # lazy: optional dependency

    wp.config.log_level = 40    # errors only: no banner, no per-module build lines
    wp.init()
    return wp


def block_features(target: KernelUnderTest) -> list[str]:
    """The features the kernel uses that Warp kernels do not have: shared
    arrays and barriers (from the MIR), and the block and launch builtins
    named in the kernel's body outside its contracts (from the source; the
    MIR lowers `vk.tid()` to them too)."""
    mir = target.mir
    found = []
    if mir.shared:
        found.append("shared arrays (vk.shared.array)")
    if any(isinstance(ins, Barrier) for _, ins in mir.instructions()):
        found.append("barriers (vk.sync_threads)")
    used = set()
    try:
        tree = ast.parse(open(target.file, encoding="utf-8").read())
    except (OSError, SyntaxError, UnicodeDecodeError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == mir.name:
            body = ast.Module(body=[_StripContracts(_ANY).visit(b) for b in node.body], type_ignores=[])
            used |= {n.attr for n in ast.walk(body)
                     if isinstance(n, ast.Attribute) and n.attr in _NOT_WARP_SPECIALS}
    return found + [f"vk.{k}()" for k in _NOT_WARP_SPECIALS if k in used]


def why_not_warp(target: KernelUnderTest) -> str | None:
    """None when the kernel runs under Warp here, else the reason."""
    try:
        import warp  # lazy: optional dependency  # noqa: F401
    except ImportError:
        return "warp-lang is not installed (pip install warp-lang)"
    features = block_features(target)
    if features:
        return (f"{target.where}: kernel {target.name} is not valid Warp: it uses "
                f"{', '.join(features)}, which Warp kernels do not have")
    try:
        _warp_kernel(target)
    except TestingError as exc:
        return str(exc)
    return None


class _StripContracts(ast.NodeTransformer):
    """Remove `<alias>.requires(...)` / `<alias>.invariant(...)` statements."""

    def __init__(self, aliases):
        self.aliases = aliases if aliases is _ANY else set(aliases)

    def visit_Expr(self, node):
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and (self.aliases is _ANY or call.func.value.id in self.aliases)
                and call.func.attr in ("requires", "invariant")):
            return ast.Pass()
        return node


def _shim(wp):
    """`verikern` as Warp sees it: each name resolved to Warp's."""
    from warp._src.context import builtin_functions  # lazy: optional dependency

    mod = types.ModuleType("verikern_as_warp")
    names = set(lang.BUILTIN_NAMES) | set(lang.SCALAR_TYPES) | {
        "vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat", "transform", "spatial_vector",
        "spatial_matrix", "pi", "e", "tau", "inf",
        "array", "array1d", "array2d", "array3d", "array4d", "constant", "bool_"}
    for n in names:
        wn = "bool" if n == "bool_" else n
        if hasattr(wp, wn):
            setattr(mod, n, getattr(wp, wn))
        elif wn in builtin_functions:
            setattr(mod, n, builtin_functions[wn])
    return mod


def _wp_type(wp, t):
    """A verikern annotation object as the Warp type."""

    if isinstance(t, ArrayType):
        return wp.array(dtype=_wp_type(wp, t.dtype), ndim=t.ndim)
    if isinstance(t, ScalarTypeHandle):
        return getattr(wp, "bool" if t.name == "bool" else t.name)
    if isinstance(t, VectorTypeHandle):
        return getattr(wp, t.name)
    return t


def _rebind(wp, fn, module_name: str, shim):
    """`fn` with the verikern module replaced by `shim` in (a copy of) its
    module's globals, and every @vk.func of that module replaced there by a
    Warp function built the same way (one shared globals dict, so funcs
    calling funcs resolve); also returns the names the module gives verikern."""

    g = dict(fn.__globals__)
    aliases = [n for n, v in g.items() if v is verikern]
    for n in aliases:
        g[n] = shim

    def rebound(f):
        new = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
        new.__module__ = module_name
        new.__qualname__ = f.__qualname__
        new.__annotations__ = {k: _wp_type(wp, v) for k, v in getattr(f, "__annotations__", {}).items()}
        return new

    for n, v in list(g.items()):
        if isinstance(v, FuncHandle):
            g[n] = wp.Function(func=rebound(v.fn), key=v.name, namespace="",
                               module=wp.get_module(module_name),
                               code_transformers=[_StripContracts(aliases)])
    return rebound(fn), aliases


def _warp_kernel(target: KernelUnderTest):
    """The Warp kernel object for `target` (built once per file and kernel)."""
    key = (target.file, target.name)
    if key in _BUILT:
        built = _BUILT[key]
        if isinstance(built, TestingError):
            raise built
        return built
    try:
        wp = _warp()
        obj = with_object(target).obj
        if isinstance(obj, wp.Kernel):
            built = obj
        else:
            fn = getattr(obj, "fn", None)
            if fn is None:
                raise TestingError(f"{target.where}: {target.name} is neither a @vk.kernel nor "
                                   "a Warp kernel after importing its file")
            module_name = "verikern_warp_" + hashlib.sha1(str(target.file).encode()).hexdigest()[:12]
            new, aliases = _rebind(wp, fn, module_name, _shim(wp))
            built = wp.Kernel(func=new, key=target.name, module=wp.get_module(module_name),
                              code_transformers=[_StripContracts(aliases)])
            for arg in built.adj.args:
                if arg.type is None:
                    raise TestingError(f"{target.where}: argument {arg.label} has no Warp type")
        wp.load_module(built.module, device="cpu")   # Warp's own checks run now, not mid-run
    except TestingError as exc:
        _BUILT[key] = exc
        raise
    except Exception as exc:   # Warp's own rejection of the kernel
        err = TestingError(f"{target.where}: kernel {target.name} is not valid Warp: "
                           f"{type(exc).__name__}: {exc}")
        _BUILT[key] = err
        raise err from exc
    _BUILT[key] = built
    return built


def run_on_warp(target: KernelUnderTest, launch: Launch):
    """Run `launch` under Warp on its CPU device; the array arguments after it."""

    wp = _warp()
    kernel = _warp_kernel(target)
    args, arrays = [], {}
    for u, arg in zip(user_params(target.mir), kernel.adj.args):
        if not u.is_components:
            v = launch.values[u.mir[0].name]
            if isinstance(v, np.ndarray):
                arr = wp.array(v.copy(), dtype=arg.type.dtype, device="cpu")
                arrays[u.name] = (arr, v.shape, v.dtype)
                args.append(arr)
            else:
                args.append(bool(v) if isinstance(v, np.bool_) else v)
        else:   # a vector/matrix/quat parameter: its MIR components in order
            args.append(arg.type(*[float(launch.values[p.name]) for p in u.mir]))
    try:
        # no block_dim: Warp kernels have no block-level features, and Warp builds
        # a module per block size
        wp.launch(kernel, dim=launch.dims, inputs=args, device="cpu")
        wp.synchronize_device("cpu")
    except Exception as exc:
        return RunError("backend-error", f"Warp: {type(exc).__name__}: {exc}")
    return {name: arr.numpy().reshape(shape).astype(dtype, copy=False)
            for name, (arr, shape, dtype) in arrays.items()}
