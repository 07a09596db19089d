"""The instantiations of a generic kernel (`typing.Any` parameters) that
verikern proves, one kernel each (docs/LANGUAGE.md section 1).

Warp instantiates a generic kernel at launch for whatever argument types it
is given, so a `wp.overload` does not limit the types a generic kernel runs
with (an int8 key array makes an int8 instance, whose arithmetic wraps). The
instances are, in this order, without repeats:

1. one per `wp.overload(kernel, [...] or {...})` in the file;
2. one per launch site in the file whose argument types are evident
   (scan/launch_sites.py);
3. one per assignment of Warp's scalar types (bool, int8..uint64,
   float16..float64) to the generic parameters -- the element type for an
   array of `Any`, whose ndim the annotation fixes -- with which the body
   type-checks;
4. when none of those compiled: the vector-like typing the enumeration found
   to type-check (vec3 positions, a mat33 cell), or the typing it started
   from when there were too many to enumerate, and its float64 twin
   (generic_probed.py).

Invariants:
- a kernel is proved only when every instance is: each instance is a kernel
  of its own, named `kernel[T1, T2, ...]` (the types of the generic
  parameters, an array parameter by its element type), so every report
  format gives it a verdict;
- an assignment the checker refuses with a type error (TYPE_RULES) is taken
  to be one Warp cannot build either (verikern's typing is at most as strict
  as Warp's; for these typings it applies Warp's literal rule in the kernel's
  own arithmetic too: `k + 1` needs an int32 `k`, since Warp keeps a literal's
  own type; a comparison of mixed scalar types is no type error where Warp's
  C++ builds it, `int32 < uint32` included); any other error makes the
  instance an error, never a skip;
- Warp can also instantiate a generic parameter with vector, matrix and quat
  types (of any length and component type), structs, and -- for a bare
  `Any` -- arrays, which verikern does not enumerate. When the body
  type-checks with a representative of them (vec3, mat33, quat, a 1-d
  float32 array), or when there are more than MAX_ASSIGNMENTS assignments to
  try, one more instance, `kernel[...]`, stands for the instantiations not
  enumerated: its verdict is `unknown` with the reason (Instance.unknown), so
  the kernel is never reported proved as a whole, and the instances that
  were enumerated keep their own verdicts;
- typings refused with the same error (rule, place, message) are one error
  instance, `kernel[N typings]`, whose message names them (never a skip: the
  kernel stays an error);
- the MIR kernel of an instance has an identifier name (`kernel__int8`);
- `kernel[...]` carries the plan of a type-oblivious proof (generic_opaque.py):
  when that proof proves every obligation, it covers every instantiation
  (those enumerated here and the rest) and `verikern prove` reports them all
  proved by it; otherwise the verdicts above stand;
- a kernel whose own body calls tiles (or another construct outside the
  language) where Warp always builds it is that located error, whatever
  its typing (outside_language.py);
- when no typing giving every generic parameter the same type type-checks,
  the typing to start the per-group search from is searched one parameter
  at a time (generic_start.py).
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import itertools
import re
from dataclasses import dataclass, field

from verikern.errors import KernelError
from verikern.hir import nodes as H
from verikern.hir.types import (
    F32, I32, MATRIX_TYPES, QUAT, SCALAR_TYPES, VECTOR_TYPES, ArrayType, ElementType, MatrixType,
    ScalarType, VectorType, vector_type,
)
from ..scan import launch_sites
from ..scan.annotations import parse_annotation
from .body import BodyChecker
from ..scan.module import Definition, ModuleInfo
from ..scan.typing_premise import TypingPremise, read_premise
from .registry import is_any
from .generic_groups import parameter_groups
from .generic_opaque import OpaquePlan, carrier_candidates, opaque_plan
from .generic_probed import module_vector_types, probed_typings
from .generic_scalars import integer_division_at
from .generic_hints import implicated
from .generic_start import search_typing
from .outside_language import outside_kernel_error
from .generic_lengths import length_instances, length_patterns
from .generic_struct_candidates import struct_instances

#: the checker's rules for "the body does not type-check with these types"
TYPE_RULES = frozenset({
    "type-mismatch", "implicit-conversion", "bool-arith", "atomic-type", "return-type",
    "no-overload", "float-bitwise", "array-arith", "type-change", "not-indexable",
    "type-constructor", "arity", "vector-scalar-mix", "index-not-int", "warp-builtin-args",
    "condition-not-bool",
})
#: the most type assignments tried for one generic kernel: every pair of two
#: parameters' candidates (17 each: the scalars, the probes and an array)
MAX_ASSIGNMENTS = 289
#: the most typings tried one by one when a typing premise pins every generic
#: parameter (each a type check of a few milliseconds; 2**13: thirteen parameters
#: with two admitted types each, as nvalchemi's FIRE kernels have)
MAX_PINNED_ASSIGNMENTS = 8192
#: the most typings tried one parameter at a time for a typing to start from
MAX_START_CHECKS = 480
#: the candidates the start search tries first (generic_start.py), by name
_START_ORDER = {"float32": 0, "vec3": 1, "int32": 2}
_SCALARS = tuple(SCALAR_TYPES.values())
#: the non-scalar types tried to learn whether Warp can instantiate a generic
#: kernel beyond its scalar typings (then `kernel[...]` stands for them): float
#: vectors, matrices and quats, and an integer vector for bodies only integers
#: type-check (`a[i] & m` builds with vec3i in Warp 1.19)
_PROBES = (VECTOR_TYPES["vec3"], MATRIX_TYPES["mat33"], QUAT, vector_type(3, I32))
#: the vector and matrix types a directed start search also tries (generic_kernels.start_typing)
DIRECTED_EXTRA = (VECTOR_TYPES["vec2"], VECTOR_TYPES["vec4"], MATRIX_TYPES["mat22"], MATRIX_TYPES["mat44"])
MORE = "..."   # the name of the instance that stands for the types not enumerated
HIR_TYPES = (ScalarType, VectorType, MatrixType, ArrayType)


@dataclass(frozen=True)
class Instance:
    """One kernel to compile: a plain kernel, or one instantiation of a generic one."""

    definition: Definition
    name: str                    # the name reports show: `kernel` or `kernel[int8]`
    mir_name: str                # an identifier: `kernel` or `kernel__int8`
    anns: dict = field(default_factory=dict)   # param -> annotation AST or HIR type
    error: KernelError | None = None
    hir: H.KernelDef | None = None              # already checked, when enumerated
    # `error` says which instantiations verikern did not enumerate: an `unknown`
    # verdict with that reason, not a compile error (`kernel[...]` only)
    unknown: bool = False
    # `kernel[...]` only: the type-oblivious proof that may cover every
    # instantiation (generic_opaque.py), and the instances enumerated beside it
    opaque: OpaquePlan | None = None
    covers: tuple[str, ...] = ()
    # the kernel's typing premise (scan/typing_premise.py) and the instances it admits
    premise: TypingPremise | None = None
    admitted: tuple[str, ...] = ()
    # a declared `wp.overload` (or launch site), not a typing found by enumeration
    declared: bool = False
    # `kernel[...]` only: the typings beyond the enumerated ones that type-check (the
    # probes: vec3, mat33, ...; every one for a kernel with one generic parameter, else the
    # first), each param -> HIR type (app/premise_suggestion.py starts from them)
    probes: tuple[dict, ...] = ()


def _mir_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", name.replace("[", "__")).strip("_")


def _shown(t, element_only: bool) -> str:
    return str(t.dtype) if element_only and isinstance(t, ArrayType) else str(t)


def _is_array_of_any(arg: ast.arg) -> bool:
    """An `Any` parameter spelled as an array (`wp.array(dtype=Any)`), not a bare `Any`."""
    return isinstance(arg.annotation, (ast.Subscript, ast.Call))


def _any_to(node: ast.AST, name: str) -> ast.AST:
    """The annotation with its `Any` replaced by the type name `name`."""
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        for fld, value in ast.iter_fields(n):
            if isinstance(value, (ast.Name, ast.Attribute)) and (
                    getattr(value, "id", None) == "Any" or getattr(value, "attr", None) == "Any"):
                setattr(n, fld, ast.copy_location(ast.Name(id=name, ctx=ast.Load()), value))
            elif isinstance(value, list):
                setattr(n, fld, [ast.copy_location(ast.Name(id=name, ctx=ast.Load()), v)
                                 if isinstance(v, (ast.Name, ast.Attribute)) and (
                                     getattr(v, "id", None) == "Any"
                                     or getattr(v, "attr", None) == "Any") else v
                                 for v in value])
    return node


class _CountingChecker(BodyChecker):
    """The body checker, counting the expressions it types (generic_start.py's progress).
    As the checker of the funcs a kernel calls (during `_Enumerator.attempt`), it tags
    the refusal of the innermost func that refused with how many expressions that func
    typed (`typed_inside`): a typing refused further into a func's body went further."""

    typed = 0

    def check_expr(self, node, expected=None):
        self.typed += 1
        return super().check_expr(node, expected)

    def check_func(self):
        try:
            return super().check_func()
        except KernelError as e:
            if not hasattr(e, "typed_inside"):
                e.typed_inside = self.typed
            raise


class _Enumerator:
    def __init__(self, info: ModuleInfo, d: Definition, registry):
        self.info, self.d, self.registry = info, d, registry
        self.params = [a.arg for a in d.node.args.args]
        self.generic = [a for a in d.node.args.args if is_any(info, a.annotation)]
        self.chk = BodyChecker(info, d, registry)
        self.refusal: KernelError | None = None    # the first typing's type error
        self.progress = (0, 0)                      # how far the last attempt typed (attempt)
        self.typed: list | None = None     # a typing with a vector type (or a start) that type-checked
        self.furthest: tuple = ((-1, -1), None)   # (progress, typing) the last start search typed furthest
        self.premise = read_premise(info, d)
        # a generic array parameter the premise pins -> the array types it admits
        # (read_premise admits arrays of `Any` only, so each pinned parameter has an ndim)
        self.pins = {a.arg: [ArrayType(t, self.ndim(a) or 1) for t in self.premise.pins()[a.arg]]
                     for a in self.generic if self.premise is not None and a.arg in self.premise.pins()}

    def joint_rows(self) -> list[tuple] | None:
        """The typings of the generic parameters a premise with joint atoms admits (every
        generic parameter pinned), each in parameter order; None without joint atoms."""
        if self.premise is None or not self.premise.joint():
            return None
        array = {a.arg: {t.dtype: t for t in self.pins[a.arg]} for a in self.generic}
        return [tuple(array[a.arg][row[a.arg]] for a in self.generic) for row in self.premise.pinned_rows()]

    def name_of(self, types: dict) -> str:
        """`kernel[T, ...]`: an array-of-Any parameter by its element type, a bare
        `Any` by its whole type (an array there is `array<float32, 1>`)."""
        return f"{self.d.node.name}[{', '.join(_shown(types[a.arg], _is_array_of_any(a)) for a in self.generic)}]"

    def ndim(self, arg: ast.arg) -> int | None:
        """The ndim of an array-of-`Any` parameter; None for a bare `Any`."""
        if arg.annotation is not None and _is_array_of_any(arg):
            return parse_annotation(self.chk, _any_to(arg.annotation, "float"), f"parameter {arg.arg!r}").ndim
        return None

    def candidates(self, arg: ast.arg, probes: bool) -> list:
        """The types tried for one generic parameter."""
        if arg.arg in self.pins:       # exactly the types the typing premise admits
            return list(self.pins[arg.arg])
        ndim = self.ndim(arg)
        if ndim is not None:
            dtypes: tuple[ElementType, ...] = _SCALARS + (_PROBES if probes else ())
            return [ArrayType(t, ndim) for t in dtypes]
        return list(_SCALARS) + ([*_PROBES, ArrayType(F32, 1)] if probes else [])

    def check(self, types: dict):
        """(hir, None), (None, error) or (None, None) when it does not type-check."""
        hir, err = self.attempt(types)
        if err is not None and err.rule in TYPE_RULES:
            self.refusal = self.refusal or err
            return None, None
        return hir, err

    def attempt(self, types: dict, warp_literals: bool = True, checker=None):
        """(hir, None) or (None, the checker's error) for the generic parameters typed `types`
        (`warp_literals`: Warp's literal rule, as for a typing; False: the lenient one;
        `checker`: the body checker class, of the funcs too, default _CountingChecker)."""
        cls = checker or _CountingChecker
        chk = cls(self.info, self.d, self.registry,
                  func_key=_mir_name(self.name_of(types)) + ("" if warp_literals else "__lenient"))
        chk.param_anns = types
        chk.warp_literals = warp_literals
        inside = 0
        saved, self.registry.checker = self.registry.checker, cls
        try:
            return chk.check_kernel(), None
        except KernelError as e:
            inside = getattr(e, "typed_inside", 0)
            return None, e
        except RecursionError:
            return None, self.info.error("the kernel is nested too deeply to compile",
                                         self.d.loc, "too-deep", "split it into smaller parts")
        finally:
            self.registry.checker = saved
            # (expressions of the kernel typed, then of the func that refused): compared in that order
            self.progress = (chk.typed, inside)

    def progressing(self, types: dict, warp_literals: bool = True):
        """(hir, None) or (None, how far it typed before the refusal: `attempt`'s progress)."""
        hir, _ = self.attempt(types, warp_literals)
        return (hir, None) if hir is not None else (None, self.progress)

    def opaque(self) -> OpaquePlan:
        """The type-oblivious proof's kernel, or why there is none (generic_opaque.py)."""
        pools = [(a, carrier_candidates(self.ndim(a))) for a in self.generic]
        return opaque_plan(self.info, self.d, self.registry, pools, self.attempt, self.progressing,
                           start=self.typed)

    def declared(self) -> list[Instance]:
        out: list[Instance] = []
        calls = self.info.overloads.get(self.d.node.name) if self.d.scope is None else None
        for call in calls or ():
            anns, err = self._overload_anns(call)
            if err is not None:
                out.append(Instance(self.d, f"{self.d.node.name}[{ast.unparse(call.args[-1])}]",
                                    _mir_name(f"{self.d.node.name}[overload{len(out)}]"), {}, err))
                continue
            try:
                types = {p: parse_annotation(self.chk, a, f"parameter {p!r}") if isinstance(
                    a, ast.AST) else a for p, a in anns.items()}
            except KernelError as e:
                out.append(Instance(self.d, f"{self.d.node.name}[{ast.unparse(call.args[-1])}]",
                                    _mir_name(f"{self.d.node.name}[overload{len(out)}]"), {}, e))
                continue
            out.append(self._typed(types))
        for types in launch_sites.instances(self.info, self.d.node):
            out.append(self._typed(types))
        out = [dataclasses.replace(i, declared=True) for i in out if self.admits(i)]
        unique: dict[str, Instance] = {}   # a typing declared twice (two loops, a loop and a launch): once
        for inst in out:
            unique.setdefault(inst.name, inst)
        return list(unique.values())

    def admits(self, inst: Instance) -> bool:
        """Whether the typing premise admits a declared instance (an unreadable
        declaration, an error instance, is kept: it stays an error)."""
        return inst.error is not None or (all(inst.anns.get(p) in pinned for p, pinned in self.pins.items())
                                          and self.premise_admits(inst.anns))

    def premise_admits(self, types: dict) -> bool:
        """Whether the typing premise's joint atoms admit `types` (param -> HIR type; an array
        parameter by its element type); True without joint atoms (the per-parameter pins are
        the candidate pools already: `candidates`, `admits`, probed_typings)."""
        return self.premise is None or not self.premise.joint() or self.premise.admits(
            {p: t.dtype if isinstance(t, ArrayType) else t for p, t in types.items()})

    def _typed(self, types: dict) -> Instance:
        full = dict(types)
        name = self.name_of(full) if all(a.arg in full for a in self.generic) \
            else f"{self.d.node.name}[{', '.join(map(str, full.values()))}]"
        return Instance(self.d, name, _mir_name(name), full)

    def _overload_anns(self, call: ast.Call):
        spec = call.args[1] if len(call.args) == 2 and not call.keywords else None
        if isinstance(spec, (ast.List, ast.Tuple)) and len(spec.elts) == len(self.params):
            return dict(zip(self.params, spec.elts)), None
        if isinstance(spec, ast.Dict) and all(isinstance(k, ast.Constant) and k.value in self.params
                                              for k in spec.keys):
            return {k.value: v for k, v in zip(spec.keys, spec.values)
                    if isinstance(k, ast.Constant)}, None
        return {}, self.info.error(
            f"cannot read this wp.overload of {self.d.node.name!r}", call, "generic-kernel",
            "write wp.overload(kernel, [T1, T2, ...]) with one type per parameter, "
            "or a dict {name: type}")

    def enumerated(self, seen: set, declared: list[Instance]) -> list[Instance]:
        pools = [self.candidates(a, probes=True) for a in self.generic]
        total = 1
        for p in pools:
            total *= len(p)
        more = f"{self.d.node.name}[{MORE}]"
        pinned = all(a.arg in self.pins for a in self.generic)
        limit = MAX_PINNED_ASSIGNMENTS if pinned else MAX_ASSIGNMENTS
        rows = self.joint_rows() if pinned else None
        if rows is not None:      # a joint premise pins every parameter: exactly its rows
            total = len(rows)
        combos = (rows if rows is not None else itertools.product(*pools)) if total <= limit \
            else self.factorised(pools, declared)
        if isinstance(combos, str):
            start = dict(zip((a.arg for a in self.generic), self.typed)) if self.typed is not None else None
            made = self.probed(start, declared, [], seen)
            return made + [Instance(self.d, more, _mir_name(self.d.node.name + "__more"), {}, self.info.error(
                f"the generic kernel {self.d.node.name!r} has {total} assignments of types to its "
                f"{len(self.generic)} generic parameters and {combos} (verikern checks at most "
                f"{MAX_ASSIGNMENTS}); Warp instantiates it for any of them at launch, so it "
                "cannot be proved for every instantiation" + _proved_apart(made), self.d.loc, "generic-kernel",
                "give some of its parameters concrete types (one kernel per type you launch)"),
                unknown=True)]
        out, beyond, probes = [], None, []
        every_probe = len(self.generic) == 1     # a few more checks: each probe that type-checks
        for combo in combos:
            types = {a.arg: t for a, t in zip(self.generic, combo)}
            if not self.premise_admits(types):      # a row a joint premise does not list
                continue
            scalar_only = all(a.arg in self.pins or (t.dtype if _is_array_of_any(a) and isinstance(t, ArrayType)
                                                     else t) in _SCALARS for a, t in zip(self.generic, combo))
            name = self.name_of(types)
            if (scalar_only and name in seen) or (not scalar_only and beyond is not None and not every_probe):
                continue
            hir, err = self.check(types)
            if hir is None and err is None:
                continue
            if not scalar_only:
                if hir is not None:
                    probes.append(types)
                beyond = beyond or name
                self.typed = self.typed or list(combo)
                continue
            seen.add(name)
            out.append(Instance(self.d, name, _mir_name(name), types, err, hir))
        if not out and not probes and not any(i.error is None for i in declared):
            found = self.start_typing(pools, directed=True)     # no scalar typing, no probe type-checks
            if found is not None:
                probes.append({a.arg: t for a, t in zip(self.generic, found[0])})
                self.typed = self.typed or list(found[0])
                beyond = beyond or self.name_of(probes[-1])
        made = self.probed(probes[0] if probes else None, declared, out, seen)
        out += made
        if beyond is not None:
            also = (f"with other vector, matrix, quat, struct or array types than {_names(made)}" if made
                    else f"as {beyond}")
            out.append(Instance(self.d, more, _mir_name(self.d.node.name + "__more"), {}, self.info.error(
                f"the generic kernel {self.d.node.name!r} may also be instantiated {also}: Warp "
                "instantiates it at launch with vector, matrix, quat, struct or array types of "
                "any size, which verikern does not enumerate, so it cannot be proved for every "
                "instantiation (the scalar ones" + (f" and {_names(made)}" if made else "")
                + " are proved one by one)", self.d.loc,
                "generic-kernel", "give the parameter a concrete type, or keep the generic "
                "body scalar-only (e.g. with a wp.static check of its type)"), unknown=True, probes=tuple(probes)))
        return out

    def probed(self, found: dict | None, declared: list[Instance], out: list[Instance],
               seen: set) -> list[Instance]:
        """The instances of a kernel with none compiled otherwise (no declared or scalar
        typing type-checks), from `found`, a vector-like typing (or a typing to start
        from) that type-checked, and its float64 twin, each checked again here
        (generic_probed.py); none when some other instance compiled."""
        if found is None or any(i.error is None for i in (*declared, *out)):
            return []
        made = []
        for types in probed_typings(found, self.pins):
            name = self.name_of(types)
            if name in seen or not self.premise_admits(types):
                continue
            hir, err = self.check(types)
            if hir is not None and err is None:
                seen.add(name)
                made.append(Instance(self.d, name, _mir_name(name), types, None, hir))
        return made

    def start_typing(self, pools: list, directed: bool = False):
        """(typing, hir) of a typing the start search finds (generic_start.py), or None: each
        pool's preferred candidates first, then the module's own vector and matrix types;
        `directed`: a directed search (generic_hints.py), which also tries DIRECTED_EXTRA
        (a `P[3]` needs a vec4) -- never for a parameter a typing premise pins."""
        own = module_vector_types(self.info, [t for p in pools for t in p])
        extra = own + [t for t in DIRECTED_EXTRA if t not in own] if directed else own
        preferred = [sorted(p, key=lambda t: _START_ORDER.get(_shown(t, True), len(_START_ORDER)))
                     + ([] if a.arg in self.pins else [
                         ArrayType(t, p[0].ndim) if isinstance(p[0], ArrayType) else t
                         for t in extra if t not in p and ArrayType(t, getattr(p[0], "ndim", 1)) not in p])
                     for a, p in zip(self.generic, pools)]
        self.furthest = ((-1, -1), None)

        def attempt(combo):
            hir, progress = self.progressing({a.arg: t for a, t in zip(self.generic, combo)})
            if hir is None and progress > self.furthest[0]:
                self.furthest = (progress, list(combo))
            return hir, progress
        return search_typing(preferred, attempt, MAX_START_CHECKS,
                             implicated=self.implicated if directed else None)

    def furthest_refusal_is_typing(self) -> bool:
        """Whether the typing the last start search typed furthest was refused by a rule
        another type can satisfy (TYPE_RULES, a constant component index out of range):
        a captured value of no readable type or a tile refuses every typing alike, and
        a directed search would spend its checks for nothing."""
        combo = self.furthest[1]
        if combo is None:
            return False
        err = self.attempt({a.arg: t for a, t in zip(self.generic, combo)})[1]
        return err is not None and (err.rule in TYPE_RULES or err.rule == "component-range")

    def implicated(self, combo) -> list[list[int]]:
        """The indexes of the generic parameters that `combo`'s refusal points at, in
        tiers (generic_hints.py)."""
        names = [a.arg for a in self.generic]
        _, err = self.attempt(dict(zip(names, combo)))
        tiers = implicated(self.d.node, names, self.info.filename, err.loc if err is not None else None)
        return [[names.index(p) for p in tier] for tier in tiers]

    def factorised(self, pools: list, declared: list[Instance]) -> list | str:
        """The typings of a kernel with too many to try one by one, found per
        independent group of parameters (generic_groups.py): a typing that
        type-checks all through (not one stopped by an error before the rules
        after it) is found first among those giving every parameter the same
        type (one per candidate), then each group's typings are tried with the
        others held there (a declared overload's typing, type-checking all
        through, is tried as that start first). Every typing of the result is checked again by the
        caller; a typing refused here is one the checker refuses. A string
        says why there are still too many."""
        index = {a.arg: i for i, a in enumerate(self.generic)}
        groups = parameter_groups(self.d.node, [a.arg for a in self.generic], self.d.requires)
        base = None
        starts = [[p[k] for p in pools] for k in range(min(len(p) for p in pools))]
        # float16 last: its typing would be the base, and the only instance of a kernel whose
        # parameters all depend on each other, where float32 type-checks as well
        starts.sort(key=lambda combo: any(_shown(t, True) == "float16" for t in combo))
        starts = [[i.anns[a.arg] for a in self.generic] for i in declared    # the declared typings first
                  if i.error is None and all(isinstance(i.anns.get(a.arg), HIR_TYPES) for a in self.generic)
                  ] + starts
        for combo in starts:
            if self.check({a.arg: t for a, t in zip(self.generic, combo)})[0] is not None:
                base = combo      # it type-checks all through (an error may hide later rules)
                self.typed = list(combo)
                break
        if base is None:    # different types per parameter (a vector `positions`, a scalar `cutoff`)
            found = self.start_typing(pools)
            if found is None and self.furthest_refusal_is_typing():
                found = self.start_typing(pools, directed=True)
            base = found[0] if found is not None else None
            self.typed = base
        if base is None:
            return ("no typing type-checks to start from (neither one giving every parameter the same "
                    "type nor one found changing one parameter's type at a time)")
        per_group: list[tuple[list[int], list[tuple]]] = []
        for group in groups:
            members = [index[p] for p in group]
            size = 1
            for i in members:
                size *= len(pools[i])
            if size > MAX_ASSIGNMENTS:
                return (f"its parameters {', '.join(group)} depend on each other ({size} "
                        "assignments of their types to check)")
            found = []
            for part in itertools.product(*(pools[i] for i in members)):
                combo = list(base)
                for i, t in zip(members, part):
                    combo[i] = t
                if self.check({a.arg: t for a, t in zip(self.generic, combo)}) != (None, None):
                    found.append(part)      # it type-checks (or is an error, reported by the caller)
            per_group.append((members, found))
        total = 1
        for _, found in per_group:
            total *= len(found)
        if total > MAX_ASSIGNMENTS:
            return f"{total} typings that type-check in its {len(groups)} independent groups of parameters"
        out = []
        for parts in itertools.product(*(found for _, found in per_group)):
            combo = list(base)
            for (members, _), part in zip(per_group, parts):
                for i, t in zip(members, part):
                    combo[i] = t
            out.append(tuple(combo))
        return out


def _names(made: list[Instance]) -> str:
    return ", ".join(i.name for i in made)


def _proved_apart(made: list[Instance]) -> str:
    """The `kernel[...]` message's note on the typings proved one by one (generic_probed.py)."""
    return f" (its typings {_names(made)} are proved one by one)" if made else ""


def _error_key(inst: Instance) -> tuple | None:
    """What makes two typings' errors the same (rule, place, message, hint); None
    for an instance that compiled or stands for the typings not enumerated."""
    err = inst.error
    if err is None or inst.unknown:
        return None
    return err.rule, err.loc.file, err.loc.line, err.loc.col, err.message, err.hint


def _merge_same_errors(mine: list[Instance]) -> list[Instance]:
    """`mine` with the instances that fail with the same error (rule, place and
    message) given as one instance, `kernel[N typings]`, at the first one's
    place, its message naming the typings it stands for (a nested tile kernel
    refused the same way in all of its 144 typings is one error, not 144)."""
    groups: dict[tuple, list[Instance]] = {}
    for inst in mine:
        key = _error_key(inst)
        if key is not None:
            groups.setdefault(key, []).append(inst)
    out: list[Instance] = []
    for inst in mine:
        key = _error_key(inst)
        same = groups[key] if key is not None else [inst]
        if len(same) == 1 or inst.error is None:
            out.append(inst)
        elif same[0] is inst:
            err, n = inst.error, len(same)
            shown = same if n <= 3 else [*same[:2], None, same[-1]]
            named = ", ".join("..." if i is None else i.name for i in shown)
            merged = KernelError(f"{err.message} (the same error in each of its {n} typings: {named})",
                                 err.loc, err.rule, err.hint, err.source_line)
            base = inst.definition.node.name
            out.append(dataclasses.replace(inst, name=f"{base}[{n} typings]",
                                           mir_name=_mir_name(f"{base}__{n}_typings"), anns={},
                                           error=merged, hir=None))
    return out


def _with_opaque(e: _Enumerator, mine: list[Instance]) -> list[Instance]:
    """`mine` with its `kernel[...]` instance (if any) given the type-oblivious
    proof's plan and the names of the instances it would cover (those that compiled)."""
    if not any(i.unknown for i in mine):
        return mine
    plan = e.opaque()
    if plan.divisions:      # a division kept as a float one: no instance that type-checks divides integers there
        for i in mine:
            bad = integer_division_at(i.hir, set(plan.divisions)) if i.hir is not None else None
            if bad is not None:
                plan = OpaquePlan(refusal=f"a division at line {bad.loc.line} by a value of a generic type "
                                          f"divides integers in {i.name}: an integer instantiation divides by "
                                          "zero there when it is 0")
                break
    covers = tuple(i.name for i in mine if not i.unknown and i.error is None)
    return [dataclasses.replace(i, opaque=plan, covers=covers) if i.unknown else i for i in mine]


def kernel_instances(info: ModuleInfo, registry, only=None) -> list[Instance]:
    """Every kernel to compile and prove, in source order (see the module docstring);
    `only`: the names of the kernels wanted (None: all), the others not checked at all."""
    out: list[Instance] = []
    for d in info.kernels:
        if only is not None and d.node.name not in only:
            continue
        if not any(is_any(info, a.annotation) for a in d.node.args.args):
            if length_patterns(info, d):    # `vector(length=Any, dtype=T)` parameters (generic_lengths.py)
                out.extend(length_instances(info, d, registry, TYPE_RULES, Instance, _mir_name,
                                            _merge_same_errors))
                continue
            out.append(Instance(d, d.node.name, d.node.name))
            continue
        try:
            if (outside := outside_kernel_error(info, d.node)) is not None:
                raise outside       # every typing reaches it: no instance to check (outside_language.py)
            e = _Enumerator(info, d, registry)
            declared = e.declared()
            seen = {i.name for i in declared}
            mine = declared + (struct_instances(e, Instance, _mir_name, seen) or e.enumerated(seen, declared))
            if not mine and e.premise is not None:
                why = e.refusal.render() if e.refusal is not None else "no typing was tried"
                raise info.error(f"the typing premise {e.premise.text()} admits no instantiation of "
                                 f"{d.node.name!r} that type-checks (Warp cannot build one either); "
                                 f"the first typing tried was refused with:\n{why}",
                                 e.premise.atoms[0].node, "typing-premise",
                                 "admit the types the kernel is launched with")
            if not mine:    # never hidden: Warp may still build it (or verikern refuses too much)
                why = e.refusal.render() if e.refusal is not None else "no typing was tried"
                mine = [Instance(d, f"{d.node.name}[{MORE}]", _mir_name(d.node.name + "__more"), {}, info.error(
                    f"no typing of the generic kernel {d.node.name!r} type-checks, so there is nothing "
                    f"to prove; the first typing tried was refused with:\n{why}", d.loc, "generic-kernel",
                    "give its generic parameters concrete types"))]
            mine = _with_opaque(e, _merge_same_errors(mine))
            if e.premise is not None:
                admitted = tuple(i.name for i in mine if not i.unknown and i.error is None)
                mine = [dataclasses.replace(i, premise=e.premise, admitted=admitted) for i in mine]
            out.extend(mine)
        except KernelError as err:
            out.append(Instance(d, f"{d.node.name}[{MORE}]", _mir_name(d.node.name + "__more"),
                                {}, err))
    return out
