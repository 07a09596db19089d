"""The instances of a kernel generic over vector lengths: parameters written
`wp.array(dtype=vector(dtype=scalar_t, length=Any))` (check/length_generic.py;
warpSPHCore's Verlet-list kernels), with no `Any` parameter.

Warp 1.19 builds such a kernel for the element types of the arrays it is
launched with, any length each. verikern compiles one instance per length 1 to
4 (LENGTHS: Warp's vec2..vec4 and warpSPHCore's own 1-d `vec1f`) given to every
such parameter alike, `kernel[vec3, vec3]` (a project launches its positions
of one dimension together; each instance is a proof of its own, so the
mixed assignments, 16 for two parameters in each configuration, would
multiply the proving time), and one more, `kernel[...]`, that stands for
every other typing: other lengths and mixed ones.

Invariants (those of generic_kernels.py for `Any`):
- an assignment the checker refuses with a type error (TYPE_RULES) is one Warp
  cannot build either and is no instance; any other error makes the instance
  an error; typings refused with the same error are one error instance;
- `kernel[...]` is `unknown` with the reason, so the kernel as a whole is never
  reported proved; the enumerated instances keep their own verdicts; it has no
  type-oblivious proof (OpaquePlan with the refusal);
"""
from __future__ import annotations

from verikern.errors import KernelError
from verikern.hir.types import ArrayType
from ..scan.module import Definition, ModuleInfo
from .body import BodyChecker
from .generic_opaque import OpaquePlan
from .length_generic import LengthPattern, length_generic

#: the lengths tried, each given to every length-generic parameter
LENGTHS = (1, 2, 3, 4)


def length_patterns(info: ModuleInfo, d: Definition) -> dict[str, LengthPattern]:
    """param -> its pattern, for every length-generic parameter of the kernel `d`."""
    found = {a.arg: length_generic(info, a.annotation) for a in d.node.args.args}
    return {p: t for p, t in found.items() if t is not None}


def _shown(t) -> str:
    return str(t.dtype) if isinstance(t, ArrayType) else str(t)


def length_instances(info: ModuleInfo, d: Definition, registry, type_rules: frozenset,
                     instance_type, mir_name, merge) -> list:
    """The instances of the kernel `d` (module docstring); `instance_type`,
    `mir_name` and `merge` are generic_kernels.py's Instance, _mir_name and
    _merge_same_errors (passed in: that module imports this one)."""
    patterns = length_patterns(info, d)
    names = list(patterns)
    combos = [(n,) * len(names) for n in LENGTHS]
    out, refusal = [], None
    for combo in combos:
        types = {p: patterns[p].instance(n) for p, n in zip(names, combo)}
        name = f"{d.node.name}[{', '.join(_shown(t) for t in types.values())}]"
        chk = BodyChecker(info, d, registry, func_key=mir_name(name))
        chk.param_anns = types
        try:
            hir = chk.check_kernel()
        except KernelError as e:
            if e.rule in type_rules:
                refusal = refusal or e
                continue
            out.append(instance_type(d, name, mir_name(name), types, e))
            continue
        out.append(instance_type(d, name, mir_name(name), types, None, hir))
    written = ", ".join(f"{p} ({patterns[p]})" for p in names)
    tried = "the lengths 1 to 4" + (", the same for every parameter," if len(names) > 1 else "")
    if not out:
        why = refusal.render() if refusal is not None else "no typing was tried"
        return [instance_type(d, f"{d.node.name}[...]", mir_name(d.node.name + "__more"), {}, info.error(
            f"no typing of the kernel {d.node.name!r}, generic over the length of {written}, "
            f"type-checks ({tried} were tried); the first was refused with:\n{why}", d.loc,
            "generic-kernel", "give the parameters a concrete length"))]
    more = instance_type(d, f"{d.node.name}[...]", mir_name(d.node.name + "__more"), {}, info.error(
        f"the kernel {d.node.name!r} is generic over the length of {written}: Warp builds it for "
        f"whatever length it is launched with; verikern compiles {tried} and cannot prove it for "
        "the others", d.loc, "generic-kernel",
        "give the parameters a concrete length (one kernel per dimension you launch)"),
        unknown=True, opaque=OpaquePlan(refusal="its parameters are generic over a vector length, "
                                                "which the type-oblivious proof does not take"))
    return merge(out) + [more]
