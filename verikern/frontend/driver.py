"""compile_source / compile_file: kernel file text -> HIR -> MIR per kernel.

Invariants: the file is parsed, never executed; one bad kernel never stops
the others; every MIR kernel handed out has passed `verify` before and after
the default pass pipeline (a failure there is reported as an `internal`
KernelError at the kernel, never as a bare traceback).
"""
from __future__ import annotations

import dataclasses

import ast
import gc
import sys
from dataclasses import dataclass, field
from pathlib import Path

from verikern.errors import KernelError
from verikern.hir import nodes as H
from verikern.mir import nodes as M
from verikern.mir.nodes import SourceLoc
from verikern.mir.passes import run_default_pipeline
from verikern.mir.verifier import MirVerifyError, verify
from verikern.hir.types import HELD_LENGTHS, ArrayType
from .check.body import BodyChecker
from .check.held_arrays import held_contract_leaf
from .scan.factories import collect_calls, local_type_aliases
from .lower.lowerer import Lowerer
from .check.generic_kernels import kernel_instances
from .check.generic_lengths import length_patterns
from .scan.module import ModuleInfo, scan_module
from .scan.project import Project
from .scan.configuration import (
    MAX_CONFIGURATIONS, configuration_ident, configuration_label, configurations, configured_tree, decided_tree,
    file_choices,
)
from .configured import merge_configurations
from .scan.overload_decls import declared_overloads
from .scan import launch_sites
from .check.registry import FuncRegistry, is_any
from .compile_budget import KernelMeters, generic_definition
from .scan.module_reads import count_tree, reading_ledger
from verikern.mir.work import CompileBudgetSpent, CompileMeter, metering


@dataclass(frozen=True)
class KernelResult:
    name: str
    loc: SourceLoc
    hir: H.KernelDef | None
    mir: M.Kernel | None
    error: KernelError | None = None
    # the error is no compile error but the instantiations of a generic kernel
    # that were not enumerated (`kernel[...]`): a proof reports it as `unknown`
    unknown: bool = False
    # `kernel[...]` only (check/generic_opaque.py): the opaque kernel of the
    # type-oblivious proof that may cover every instantiation, or why there is
    # none; the instances it covers; the factor on the array-size bound it needs
    opaque: M.Kernel | None = None
    opaque_refusal: str | None = None
    covers: tuple[str, ...] = ()
    array_bytes_factor: int = 1
    # a generic kernel's instance: the HIR types of its generic parameters, and
    # whether a `wp.overload` (or a launch site) declares it (app/premise_suggestion.py)
    typing: tuple[tuple[str, object], ...] = ()
    declared: bool = False
    # `kernel[...]` only: the typings beyond the enumerated ones that type-check (vec3, mat33, ...)
    probes: tuple[tuple[tuple[str, object], ...], ...] = ()
    # not compiled: the kernel's compile budget was spent first (`compile_source`'s `work`);
    # the error says what was counted and how far it got: a proof reports it `unknown`
    budget_spent: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class ModuleResult:
    filename: str
    kernels: list[KernelResult] = field(default_factory=list)
    errors: list[KernelError] = field(default_factory=list)
    funcs: dict = field(default_factory=dict)
    # (path, sha256) of every project module the file's imports read (scan/project.py)
    imports: tuple[tuple[str, str], ...] = ()
    # each kernel definition's compile work (verikern.mir.work: every instance and configuration)
    work: dict = field(default_factory=dict)

    def kernel(self, name: str) -> KernelResult:
        for k in self.kernels:
            if k.name == name:
                return k
        have = ", ".join(k.name for k in self.kernels) or "none"
        raise KeyError(f"no kernel named {name!r} in {self.filename} (kernels: {have})")

    @property
    def kernel_names(self) -> list[str]:
        return [k.name for k in self.kernels]

    @property
    def all_errors(self) -> list[KernelError]:
        return list(self.errors) + [k.error for k in self.kernels if k.error is not None]


def lower_kernel(kdef: H.KernelDef, optimize: bool = True) -> M.Kernel:
    """HIR kernel -> verified MIR (optionally through the default pipeline)."""
    kernel = Lowerer(_without_unread_held_contracts(kdef)).lower()
    verify(kernel)
    if optimize:
        kernel = run_default_pipeline(kernel)
        verify(kernel)
    return kernel


def _without_unread_held_contracts(kdef: H.KernelDef) -> H.KernelDef:
    """`kdef` without the contracts on the held arrays (check/held_arrays.py
    `held_contract_leaf`) of a leaf the kernel never reads, found by lowering
    it once without them (only kernels that have such contracts)."""
    arrays = {p.name for p in kdef.params if isinstance(p.type, ArrayType)}
    tagged = [(s, held_contract_leaf(s, arrays)) for s in kdef.body]
    if all(leaf is None for _, leaf in tagged):
        return kdef
    trial = Lowerer(dataclasses.replace(kdef, body=tuple(s for s, leaf in tagged if leaf is None)))
    read = {ins.array.name for _, ins in trial.lower().instructions()
            if isinstance(ins, (M.Load, M.Store, M.Atomic))}
    return dataclasses.replace(kdef, body=tuple(
        s for s, leaf in tagged if leaf is None or leaf in read or f"{leaf}.{HELD_LENGTHS}" in read))


def _syntax_error(e: SyntaxError, filename: str) -> KernelError:
    loc = SourceLoc(filename, e.lineno or 1, e.offset or 1)
    return KernelError(f"syntax error: {e.msg}", loc, rule="syntax",
                       hint="fix the Python syntax", source_line=e.text.rstrip("\n")
                       if e.text else None)


def compile_source(source: str, filename: str = "<string>", optimize: bool = True,
                   project_file=None, kernels=None, configuration: str | None = None,
                   work: int | None = None, work_hint: str | None = None) -> ModuleResult:
    """Compile every @kernel in `source` (see module docstring).
    `project_file`: the path the source was read from; names it imports from
    the other modules of its project are then read from their source
    (scan/project.py). None: such imports are never constants.
    `kernels`: the names of the kernels to compile (a generic kernel's: all its
    instances; None: every kernel); the module is still read whole (its
    errors reported), the other kernels are neither checked nor listed.
    `configuration`: a kernel's name (`k{scalar_t=float16}`, or its MIR name
    `k__scalar_t_float16`): a file with configuration choices is compiled under that
    kernel's configuration alone (its instances named as always, each kernel with an
    unknown `kernel{...}` for the rest); None, or a name of no configuration: every one.
    `work`: each kernel's compile budget in units (verikern.mir.work; every instance and
    configuration of it; None: no limit, counted only): a kernel past it stops compiling,
    keeps the instances that reached MIR and gets a `budget_spent` result for the rest,
    whose error says what was counted, how far it got and (`work_hint`) how to raise it."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))  # long expressions recurse deeply
    thresholds = gc.get_threshold()
    gc.set_threshold(*(max(t, c) for t, c in zip(thresholds, _GC_THRESHOLDS)))
    try:
        meters = KernelMeters(work, work_hint)
        with metering(CompileMeter()), reading_ledger():   # the module's own work: counted, never limited
            result = _compile_source(source, filename, optimize, project_file,
                                     None if kernels is None else frozenset(kernels), configuration, meters)
        return dataclasses.replace(result, work=meters.by_kernel)
    finally:
        sys.setrecursionlimit(limit)
        gc.set_threshold(*thresholds)


_RECURSION_LIMIT = 12000
#: the garbage collector's thresholds while compiling (at least these): a real
#: project's kernel builds millions of long-lived objects (project ASTs, the
#: MIR of its instances), which Python's default (700, 10, 10) scans over and
#: over; compiling warpsphcore's computeSPHDensityJVP_Kernel took 60.8 CPU s
#: with the default, 43.1 with these (the same MIR). No effect on results.
_GC_THRESHOLDS = (50_000, 20, 20)


def _compile_source(source: str, filename: str, optimize: bool, project_file,
                    only: frozenset | None, label: str | None, meters: "KernelMeters") -> ModuleResult:
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        return ModuleResult(filename, [], [_syntax_error(e, filename)])
    except (RecursionError, MemoryError):
        return ModuleResult(filename, [], [KernelError(
            "the file is nested too deeply to parse", SourceLoc(filename, 1, 1), rule="too-deep",
            hint="split long expressions into several statements")])
    except ValueError as e:  # e.g. NUL bytes
        return ModuleResult(filename, [], [KernelError(f"cannot parse: {e}",
                                                       SourceLoc(filename, 1, 1))])
    as_written = CompileMeter()     # before its kernels are known: charged to each after
    with metering(as_written):
        tree, info = _read(tree, filename, source, project_file, ())
    names = [k for k in dict.fromkeys(d.node.name for d in info.kernels) if only is None or k in only]
    meters.charge_read(names, as_written)
    choices = file_choices(info)
    if not choices:
        return _compile_read(tree, info, optimize, only, meters)
    every = configurations(choices)
    chosen = [c for c in every if label is not None and (
        f"{{{configuration_label(c)}}}" in label or label.endswith(f"__{configuration_ident(c)}")
        or f"__{configuration_ident(c)}__" in label)]
    if chosen:      # one configuration alone (the re-proof of one instance's suggestion)
        alone = _configured_run(tree, info, filename, source, project_file, chosen[0], optimize, only,
                                names, meters)
        return merge_configurations([(chosen[0], alone)], len(every), _remainder, frozenset(
            k.name.split("[")[0] for k in alone.kernels))
    # the default configuration (a kernel none of whose default instances reached MIR is never
    # proved, whatever the other configurations give: they are not compiled, merge_configurations
    # says so)
    first = _configured_run(tree, info, filename, source, project_file, every[0], optimize, only, names, meters)
    reached = frozenset(k.name.split("[")[0] for k in first.kernels if k.mir is not None or k.opaque is not None)
    runs = [(every[0], first)]
    for configuration in every[1:MAX_CONFIGURATIONS] if reached else ():
        order = [k for k in names if k in reached]
        runs.append((configuration, _configured_run(tree, info, filename, source, project_file, configuration,
                                                    optimize, reached, order, meters)))
    return merge_configurations(runs, len(every), _remainder, reached)


def _configured_run(tree: ast.Module, info: ModuleInfo, filename: str, source: str, project_file, configuration,
                    optimize: bool, only: frozenset | None, names: list[str], meters: KernelMeters) -> ModuleResult:
    """The kernels `names` compiled under `configuration`, the file read again under it on
    their meters (`info`: the file as written); a kernel whose meter that read spent (or
    an earlier one) gets its `budget_spent` result, the file's errors none."""
    read = None
    if any(not meters.of(k).exhausted for k in names) or not names:    # no kernel left to compile: no read
        read = meters.read_for(names, lambda: _read(tree, filename, source, project_file, configuration))
    if read is not None:
        return _compile_read(read[0], read[1], optimize, only, meters)
    return ModuleResult(info.filename, [r for k in names for r in _compiled_kernel(k, info, None, optimize, meters)])


def _read(tree: ast.Module, filename: str, source: str, project_file, configuration):
    """The file's tree and ModuleInfo read under `configuration` (scan/configuration.py;
    `()`: as written), with the project modules it imports read under it too."""
    def fresh(project, module_name):
        made = ModuleInfo(filename, source)
        if project is not None:
            made.project, made.module_name = project, module_name
            made.is_package = Path(project_file).name == "__init__.py"
        return made

    project, module_name = None, ""
    if project_file is not None:
        project, module_name = Project.of_file(project_file, tree)
        project.configuration = configuration
        project.modules[module_name] = None   # importing itself: no constants
    tree = configured_tree(tree, filename, configuration)
    count_tree(None, tree)      # the file's own read (its project modules: module_reads.py)
    info = fresh(project, module_name)
    collect_calls(tree, info)   # the call sites of kernel factories, before scanning them
    scan_module(tree, info)
    decided = decided_tree(tree, info) if configuration else None
    if decided is not None:     # `if scalar_t == wp.float32:` decided by the configuration
        tree, info = decided, fresh(project, module_name)
        collect_calls(tree, info)
        scan_module(tree, info)
    declared_overloads(tree, info)
    local_type_aliases(tree, info)
    launch_sites.collect(tree, info)
    return tree, info


def _remainder(name: str, loc: SourceLoc, why: str) -> "KernelResult":
    """`kernel{...}`: the configurations not compiled, an `unknown` verdict with the reason."""
    return KernelResult(name, loc, None, None, KernelError(why, loc, rule="configuration"), True,
                        opaque_refusal="it stands for configurations that were not compiled")


def _compile_read(tree: ast.Module, info: ModuleInfo, optimize: bool,
                  only: frozenset | None, meters: "KernelMeters") -> ModuleResult:
    """Check and lower the kernels of a file read by `_read`, each on its meter of `meters`."""
    registry = FuncRegistry(info, BodyChecker)
    kernels = []
    for kname in dict.fromkeys(d.node.name for d in info.kernels if only is None or d.node.name in only):
        kernels.extend(_compiled_kernel(kname, info, registry, optimize, meters))
    used = {id(k.error) for k in kernels if k.error is not None}
    errors = list(info.errors) + [e for e in registry.errors() if id(e) not in used]
    funcs = {}
    for name in info.funcs:
        try:
            funcs[name] = registry.get(name).fdef
        except KernelError:
            pass
    imports = tuple(sorted(info.project.files.items())) if info.project is not None else ()
    return ModuleResult(info.filename, kernels, errors, funcs, imports)


def _compiled_kernel(kname: str, info: ModuleInfo, registry, optimize: bool,
                     meters: "KernelMeters") -> list[KernelResult]:
    """The results of the kernel definition(s) named `kname`, its work on its meter: the
    instances that reached MIR before the meter ran out, then `budget_spent` results."""
    meter = meters.of(kname)
    d = next(d for d in info.kernels if d.node.name == kname)
    if meter.exhausted:     # spent in an earlier configuration
        return [_spent(meters, info, d, kname, None, 0, None, earlier=True)]
    try:
        with metering(meter):
            instances = kernel_instances(info, registry, frozenset((kname,)))
    except CompileBudgetSpent:
        return [_spent(meters, info, d, kname, None, 0, None)]
    done: list[KernelResult] = []
    for inst in instances:
        try:
            with metering(meter):
                done.append(_compiled_instance(inst, info, registry, optimize))
        except CompileBudgetSpent:
            reached = sum(1 for k in done if k.mir is not None)
            return done + [_spent(meters, info, inst.definition, kname, rest.name, reached, len(instances))
                           for rest in instances[len(done):]]
    return done


def _spent(meters: KernelMeters, info: ModuleInfo, d, kname: str, name: str | None, reached: int,
           total: int | None, earlier: bool = False) -> KernelResult:
    """The result of an instance `name` of kernel `kname` not compiled, its budget spent
    (None: the kernel itself, `kname[...]` when generic: its instances were not all found)."""
    if name is None:
        name = f"{kname}[...]" if generic_definition(info, d) else kname
    return KernelResult(name, d.loc, None, None, meters.spent_error(info, d, kname, reached, total, earlier),
                        budget_spent=True)


def _compiled_instance(inst, info: ModuleInfo, registry, optimize: bool) -> KernelResult:
    """One instance checked (when its HIR is not made yet) and lowered."""
    d, name = inst.definition, inst.name
    hir, mir, err = inst.hir, None, None
    try:
        if inst.error is not None:
            raise inst.error
        if hir is None:
            chk = BodyChecker(info, d, registry, func_key=inst.mir_name)
            chk.param_anns = inst.anns
            hir = chk.check_kernel()
    except KernelError as e:
        err = e
    except RecursionError:
        err = info.error("the kernel is nested too deeply to compile", d.loc, "too-deep",
                         "split the expression or the kernel into smaller parts")
    except Exception as e:  # a checker bug: report it at the kernel, no traceback
        err = info.error(f"internal compiler error while checking {d.node.name!r}: "
                         f"{type(e).__name__}: {e}", d.loc, "internal",
                         "please report this kernel to the verikern developers")
    if hir is not None:
        try:
            # the file's text rides along for messages that quote source expressions
            mir = dataclasses.replace(lower_kernel(hir, optimize), source=info.source,
                                      typing_premise=_premise_read(inst, info))
        except RecursionError:
            err = info.error("the kernel is nested too deeply to compile", d.loc,
                             "too-deep", "split the kernel into smaller parts")
        except (MirVerifyError, Exception) as e:
            err = info.error(f"internal compiler error while lowering {d.node.name!r}: "
                             f"{type(e).__name__}: {e}", d.loc, "internal",
                             "please report this kernel to the verikern developers")
            mir = None
    generic = {a.arg for a in d.node.args.args if is_any(info, a.annotation)} | set(length_patterns(info, d))
    result = KernelResult(name, d.loc, hir, mir, err, inst.unknown and err is inst.error,
                          typing=tuple((p, t) for p, t in inst.anns.items() if p in generic
                                       and not isinstance(t, ast.AST)),
                          probes=tuple(tuple(probe.items()) for probe in inst.probes),
                          declared=inst.declared)
    return _with_opaque(result, inst, info) if inst.opaque is not None else result


def _premise_read(inst, info: ModuleInfo) -> M.TypingPremiseRead | None:
    """The typing premise an instance carries into its MIR (reports state it)."""
    if inst.premise is None:
        return None
    return M.TypingPremiseRead(inst.premise.text(), info.loc(inst.premise.atoms[0].node), inst.admitted)


def _with_opaque(result: KernelResult, inst, info: ModuleInfo) -> KernelResult:
    """`kernel[...]`'s result with its opaque kernel lowered to MIR (or why not)."""
    plan = inst.opaque
    if plan.hir is None:
        return dataclasses.replace(result, opaque_refusal=plan.refusal, covers=inst.covers)
    try:
        # never constant-folded: a float literal of a generic type (`type(x)(0.5)`) is no
        # value of every instantiation (0 in int8), so `0.5 > 0.0` must stay a fresh compare
        mir = dataclasses.replace(lower_kernel(plan.hir, optimize=False), source=info.source,
                                  name=inst.mir_name.replace("__more", "__opaque"))
    except (RecursionError, MirVerifyError, Exception) as e:  # a lowering bug: no opaque proof, say why
        return dataclasses.replace(result, covers=inst.covers, opaque_refusal=(
            f"its opaque kernel did not compile: {type(e).__name__}: {e}"))
    return dataclasses.replace(result, opaque=mir, covers=inst.covers,
                               array_bytes_factor=plan.element_bytes)


def compile_file(path, kernels=None, work: int | None = None, work_hint: str | None = None) -> ModuleResult:
    """compile_source on the text of `path` (errors name the path; `kernels`, `work`,
    `work_hint`: see there)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return ModuleResult(str(path), [], [KernelError(f"cannot read {path}: {e}",
                                                        SourceLoc(str(path), 1, 1),
                                                        rule="io")])
    return compile_source(text, str(path), project_file=p, kernels=kernels, work=work, work_hint=work_hint)
