"""`vk.launch`: check a launch completely, then run it on a device.

Invariant: `prepare_launch` performs every check (arguments, dtypes, ndims,
scalar ranges, overlap, launch geometry, `requires` and array contracts)
before anything runs, and every refusal is a LaunchError/ContractError that
names the kernel, the parameter and what to do.  Devices only ever receive
checked, C-contiguous arrays; results are copied back into the caller's
arrays when a contiguous copy had to be made. Warp arrays (anything with
`.numpy()` and `.shape` that is not a numpy array) are read through
`.numpy()`, and the results are written back into them (in place when
`.numpy()` is a writable view of the array's memory, else with `.assign`).
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import re

import numpy as np

from verikern.backends.launch import (  # noqa: F401  (re-exported: vk's launch API)
    DEFAULT_BLOCK_DIM, MAX_THREADS, LaunchConfig, check_array, convert_scalar, launch_config,
    prepare_mir_launch, written_globals,
)
from verikern.errors import LaunchError, KernelError
from verikern.held_launch import HeldValues, check_held_overlap
from verikern.mir.nodes import ArrayRef, Kernel, ScalarParam
from verikern.mir.params import captured_params, user_params
from verikern.lang import KernelHandle

# device name -> (module, function name); "cuda:N" is matched separately
DEVICES: dict[str, tuple[str, str]] = {
    "cpu": ("verikern.backends.simulator", "run"),
    "cpu:trace": ("verikern.backends.simulator", "run_traced"),
    "cpu:native": ("verikern.backends.native", "run"),
    # cpu:native without the index checks whose bounds are proved (it proves the kernel once)
    "cpu:native:proved": ("verikern.app.native_proved", "run"),
    "cuda": ("verikern.backends.cuda", "run"),
}
_CUDA_N = re.compile(r"^cuda:(\d+)$")


def _device_names() -> str:
    return ", ".join(sorted(DEVICES)) + ", cuda:N"


def _kernel_of(kernel, inputs=None) -> Kernel:
    """The MIR kernel to launch: a MIR Kernel, a @vk.kernel handle or a Warp
    kernel object (its function's file is compiled); for a generic kernel,
    the first of its wp.overload instances that takes `inputs`."""
    if isinstance(kernel, Kernel):
        return kernel

    handle = kernel if isinstance(kernel, KernelHandle) else None
    fn = getattr(kernel, "func", None)   # a Warp kernel object: compile its source file
    if handle is None and callable(fn) and hasattr(fn, "__code__"):
        handle = KernelHandle(fn)
    if handle is None:
        mir = getattr(kernel, "mir", None)
        if isinstance(mir, Kernel):
            return mir
    else:
        try:
            return handle.mir
        except KernelError:
            overloads = [r for r in handle.overloads() if r.mir is not None]
            if not overloads or inputs is None:
                raise
            for r in overloads:
                if _takes(r.mir, inputs, kernel):
                    return r.mir
            premise = next((r.mir.typing_premise for r in overloads if r.mir.typing_premise), None)
            if premise is not None:
                raise LaunchError(
                    f"kernel {handle.name}: no instance it is proved for takes these arguments "
                    f"({_arguments_shown(inputs)}): its typing premise {premise.text} (line "
                    f"{premise.loc.line}) admits {', '.join(premise.admitted)} only; pass arrays of an "
                    "admitted dtype, or widen the premise and prove the kernel again") from None
            raise LaunchError(f"kernel {handle.name}: none of its wp.overload instances takes "
                              "these arguments (check the dtypes)") from None
    raise LaunchError(f"vk.launch: expected a @vk.kernel function or a verikern.mir.Kernel, "
                      f"got {type(kernel).__name__}")


def _arguments_shown(inputs) -> str:
    """Each array argument as its element type and shape, as a launch hands it over."""
    shown = []
    for v in inputs:
        if isinstance(v, np.ndarray):
            shown.append(f"{v.dtype} array of shape {tuple(v.shape)}")
        else:
            shown.append(type(v).__name__)
    return ", ".join(shown)


def _python_function(kernel):
    """The Python function behind a @vk.kernel handle or a Warp kernel object."""
    for attr in ("fn", "func"):
        f = getattr(kernel, attr, None)
        if callable(f) and hasattr(f, "__code__"):
            return f
    return None


def _lookup_captured(fn, name: str, seen: set):
    """The value `name` has for `fn` (its closure, then its globals), also
    searched in the funcs it reads; raises KeyError when none has it."""
    if id(fn) in seen:
        raise KeyError(name)
    seen.add(id(fn))
    try:
        cv = inspect.getclosurevars(fn)
    except (TypeError, ValueError):
        raise KeyError(name) from None
    if name in cv.nonlocals:
        return cv.nonlocals[name]
    if name in cv.globals:
        return cv.globals[name]
    for v in list(cv.nonlocals.values()) + list(cv.globals.values()):
        inner = _python_function(v) or (v if inspect.isfunction(v) else None)
        if inner is not None:
            with contextlib.suppress(KeyError):          # not there: look further
                return _lookup_captured(inner, name, seen)
    raise KeyError(name)


def _captured_values(kernel, k: Kernel, captured: tuple[ScalarParam, ...]) -> list:
    """The values of the constants a kernel captures (its CAPTURED params),
    read from its function's closure or module as Warp reads them at launch."""
    fn = _python_function(kernel)
    out = []
    for p in captured:
        try:
            if fn is None:
                raise KeyError(p.user_name)
            out.append(_lookup_captured(fn, p.user_name, set()))
        except KeyError:
            raise LaunchError(f"kernel {k.name}: it reads {p.user_name!r} from the code around it; "
                              "launch the kernel object (the decorated function) so its value "
                              "can be read, or pass a value for every parameter including "
                              f"{p.name}") from None
    return out


def _struct_fields(k: Kernel, inputs: list, n_user: int) -> list:
    """`inputs` with each struct argument (a Warp struct instance, or any
    object or mapping with its fields) replaced by its leaf fields, in the
    order the kernel's parameters were flattened to (mir.nodes.StructArg);
    inputs that are already flat are returned as they are."""
    if not k.struct_args or len(inputs) != n_user - sum(len(a.fields) - 1 for a in k.struct_args):
        return inputs
    by_index = {a.index: a for a in k.struct_args}
    out: list = []
    refs = [p for p in k.params if isinstance(p, ArrayRef)]
    by_name = {p.name: p for p in refs}
    held = HeldValues(k.name, {p.name: p.dtype.np_dtype for p in refs}, written_globals(k),
                      {p.name: tuple(p.inner) for p in refs})
    for j, value in enumerate(inputs):
        arg = by_index.get(j)
        if arg is None or (len(arg.fields) == 1 and arg.fields[0][0] != "[]"
                           and not _has_field(value, arg.fields[0][0])):
            out.append(value)   # not a struct argument (or already its one field)
            continue
        if arg.array and _is_warp_array(value):
            value = _field_array(k, arg, (), value)   # a Warp struct array: its structured memory
        for path in arg.fields:
            v = value
            if "[]" in path:   # through an array of structs (verikern/held_launch.py)
                cut = path.index("[]")
                for attr in path[:cut]:
                    v = v[attr] if isinstance(v, dict) else getattr(v, attr, None)
                leaf = ".".join([arg.name, *(p for p in path if p not in ("[]", "#len"))])
                out.append(held.leaf(leaf + (".len" if path[-1] == "#len" else ""), v,
                                     path[cut + 1:]))
                continue
            for attr in path:
                try:
                    v = v[attr] if isinstance(v, (dict, np.ndarray)) else getattr(v, attr)
                except (KeyError, AttributeError, ValueError, IndexError):
                    raise LaunchError(f"kernel {k.name}: argument {arg.name} has no field "
                                      f"{'.'.join(path)}; pass an instance of its @wp.struct "
                                      "class (or an object or dict with every field)") from None
            ref = by_name.get(".".join((arg.name, *path)))
            if v is None and ref is not None:   # Warp's unset array field: a null array, shape 0
                v = np.zeros((0,) * ref.ndim + tuple(ref.inner), dtype=ref.dtype.np_dtype)
            out.append(_field_array(k, arg, path, v) if _is_warp_array(v) else v)
    if held.sources:
        names = [u.name for u in user_params(k)]
        check_held_overlap(k.name, held, {names[i] if i < len(names) else f"#{i}":
                                          v.numpy() if _is_warp_array(v) else v
                                          for i, v in enumerate(out)
                                          if isinstance(v, np.ndarray) or _is_warp_array(v)})
    return out


def _has_field(value, name: str) -> bool:
    if isinstance(value, np.ndarray):   # a structured array
        return value.dtype.names is not None and name in value.dtype.names
    return name in value if isinstance(value, dict) else hasattr(value, name)


def _field_array(k: Kernel, arg, path, value) -> np.ndarray:
    """The numpy memory of a Warp array held in a struct field: a writable
    view (Warp's CPU arrays), so results land in the Warp array; a copy
    would lose them, so it is refused."""
    host = value.numpy()
    if not (isinstance(host, np.ndarray) and host.flags.writeable):
        raise LaunchError(f"kernel {k.name}: {'.'.join((arg.name, *path))} is an array whose "
                          "memory verikern cannot write in place (a GPU array?); pass a CPU "
                          "Warp array or a numpy array in the struct")
    return host


def _expand_components(k: Kernel, inputs: list, kernel=None) -> list:
    """`inputs` in user parameter order (a vector value for a vector
    parameter; captured constants read from the kernel's function) or
    already one value per MIR parameter -> one per MIR parameter."""
    user = user_params(k)
    inputs = _struct_fields(k, inputs, len(user))
    if len(inputs) == len(k.params):   # no component params, or already expanded
        return inputs
    if len(inputs) != len(user):
        names = ", ".join(u.name for u in user)
        raise LaunchError(f"kernel {k.name}: takes {len(user)} argument(s) ({names}), "
                          f"but inputs has {len(inputs)}")
    captured = captured_params(k)
    by_param: dict[str, object] = dict(zip((p.name for p in captured),
                                           _captured_values(kernel, k, captured)))
    for u, value in zip(user, inputs):
        if not u.is_components:
            by_param[u.mir[0].name] = value
            continue
        try:   # an int vector's components stay ints (wp.vec2i, a tuple of ints)
            comps = np.asarray(value).reshape(-1)
            if comps.dtype.kind not in "biuf":
                comps = np.asarray(value, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            comps = None
        if comps is None or comps.size != len(u.mir):
            raise LaunchError(f"kernel {k.name}: argument {u.name} has {len(u.mir)} components, "
                              f"got {value!r}; pass a tuple or array of {len(u.mir)} numbers")
        by_param.update((p.name, c.item()) for p, c in zip(u.mir, comps))
    return [by_param[p.name] for p in k.params]


def _takes(k: Kernel, inputs, kernel) -> bool:
    """Whether `inputs` have the types of `k`'s parameters."""
    try:
        values = _expand_components(k, list(inputs), kernel)
        for p, v in zip(k.params, values):
            if isinstance(p, ArrayRef):
                check_array(k.name, p, v)
            else:
                convert_scalar(k.name, p, v)
    except LaunchError:
        return False
    return True


def prepare_launch(kernel, dim, inputs, block_dim: int | None = 256):
    """Check everything about a launch; return (mir.Kernel, LaunchConfig,
    arrays, scalars).  Raises LaunchError/ContractError before anything runs.
    block_dim None: the kernel's fixed block_dim, else 256.  `kernel` may be
    a @vk.kernel handle, a Warp kernel object or a MIR Kernel; `inputs` in
    user parameter order (verikern.backends.launch checks the MIR launch)."""
    k = _kernel_of(kernel, inputs if isinstance(inputs, (list, tuple)) else None)
    if not isinstance(inputs, (list, tuple)):
        raise LaunchError(f"kernel {k.name}: inputs must be a list of arguments in parameter "
                          f"order, got {type(inputs).__name__}")
    return prepare_mir_launch(k, dim, _expand_components(k, list(inputs), kernel), block_dim)


# ------------------------------------------------------------------- devices
def _device_runner(device: str):
    index = None
    m = _CUDA_N.match(device) if isinstance(device, str) else None
    key = device
    if m:
        key, index = "cuda", int(m.group(1))
    if not isinstance(key, str) or key not in DEVICES:
        raise LaunchError(f"unknown device {device!r}; valid devices: {_device_names()}")
    module_name, fn_name = DEVICES[key]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise LaunchError(f"device {device!r} is not available: {module_name} could not be "
                          f"imported ({exc})") from exc
    fn = getattr(module, fn_name, None)
    if fn is None:
        raise LaunchError(f"device {device!r} is not available: {module_name}.{fn_name} "
                          f"is missing")
    return fn, index


def _all_args(inputs, outputs) -> list:
    """`inputs` then `outputs`, as `wp.launch` orders them (parameter order)."""
    if outputs is None:
        return inputs
    if not isinstance(outputs, (list, tuple)) or not isinstance(inputs, (list, tuple)):
        raise LaunchError("inputs and outputs must be lists of arguments in parameter order")
    return list(inputs) + list(outputs)


def _is_warp_array(value) -> bool:
    """A Warp array (or any array object read through `.numpy()`), not numpy's."""
    return not isinstance(value, np.ndarray) and callable(getattr(value, "numpy", None)) \
        and hasattr(value, "shape")


def check_launch(kernel, dim, inputs, block_dim: int | None = None, outputs=None) -> None:
    """Check a launch's arguments, geometry and contracts (decorator or
    in-body `requires`, array contracts) without running it; raises
    LaunchError/ContractError. `kernel` may be a @vk.kernel, a MIR Kernel or
    a Warp kernel object (its function's source file is compiled)."""
    args = [v.numpy() if _is_warp_array(v) else v for v in _all_args(inputs, outputs)]
    prepare_launch(kernel, dim, args, block_dim)   # Warp arrays are checked through .numpy()


def _host_views(args: list) -> tuple[list, list]:
    """(arguments with every Warp array replaced by numpy memory, [(Warp
    array, numpy array to write back)] for those whose `.numpy()` is not a
    writable view of the array: they get a copy, assigned back after the run)."""
    out, write_back = [], []
    for value in args:
        if not _is_warp_array(value):
            out.append(value)
            continue
        host = value.numpy()
        if not (isinstance(host, np.ndarray) and host.flags.writeable):
            host = np.array(host)
            write_back.append((value, host))
        out.append(host)
    return out, write_back


#: Devices that are the simulator, and so take its limits (max_steps, max_work).
SIMULATOR_DEVICES = ("cpu", "cpu:trace")


def launch(kernel, dim, inputs, block_dim: int | None = None, device: str = "cpu",
           trace_path=None, outputs=None, *, max_steps: int | None = None, max_work: int | None = None):
    """Run `kernel` on `dim` threads; results are written into the arrays of
    `inputs` (and `outputs`, which follow `inputs` in parameter order, as in
    `wp.launch`): numpy arrays or Warp arrays (see the module docstring).
    block_dim: default the kernel's fixed block_dim (@vk.kernel(block_dim=...)),
    else 256. device: "cpu", "cpu:trace" (needs trace_path), "cpu:native",
    "cpu:native:proved" (no index checks where proved; the kernel is proved
    once), "cuda" or "cuda:N". For the simulator ("cpu", "cpu:trace") only:
    max_steps, its scheduling steps per chunk of threads before an endless
    loop is reported (KernelRuntimeError); max_work, the simulated work
    allowed, in warp-steps (SimulationBudgetExceeded when spent: a count of
    work, the same on every machine)."""
    fn, index = _device_runner(device)
    if device == "cpu:trace" and trace_path is None:
        raise LaunchError("device 'cpu:trace' writes a JSON trace: pass trace_path=... "
                          "(the file to write)")
    limits: dict = {}
    if max_steps is not None or max_work is not None:
        if device not in SIMULATOR_DEVICES:
            raise LaunchError(f"max_steps and max_work limit the simulator: device {device!r} takes "
                              f"neither (use {' or '.join(map(repr, SIMULATOR_DEVICES))})")
        if max_steps is not None:
            limits["max_steps"] = _positive("max_steps", max_steps)
        if max_work is not None:
            from verikern.backends.simulator import WorkMeter  # lazy: device modules load on demand

            limits["meter"] = WorkMeter(_positive("max_work", max_work))
    args, write_back = _host_views(_all_args(inputs, outputs))
    k, config, arrays, scalars = prepare_launch(kernel, dim, args, block_dim)
    work = {name: (a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C"))
            for name, a in arrays.items()}
    if device == "cpu:trace":
        result = fn(k, config, work, scalars, trace_path, **limits)
    elif index is not None:
        params = inspect.signature(fn).parameters
        name = "device_index" if "device_index" in params else "device"
        result = fn(k, config, work, scalars, **{name: index})
    else:
        result = fn(k, config, work, scalars, **limits)
    for name, a in arrays.items():
        if work[name] is not a and a.flags.writeable:
            a[...] = work[name]
    for warp_array, host in write_back:
        warp_array.assign(host)
    return result


def _positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise LaunchError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
