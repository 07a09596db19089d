"""One file compiled under several configurations (scan/configuration.py) ->
one ModuleResult.

Invariants:
- a kernel whose results (instance names, MIR, errors) are the same under
  every configuration of the file does not depend on the choice: it is
  listed once, under its own name, as written;
- every other kernel is listed once per configuration, each instance named
  `kernel{scalar_t=float64}` (a generic instance `kernel{scalar_t=float64}[int8]`,
  its MIR name gaining `__scalar_t_float64`), so every report format gives
  each configuration a verdict and the kernel is proved only when all are;
- when the file has more configurations than were compiled, no kernel is
  taken as independent of them, and each gets one more instance,
  `kernel{...}`, whose verdict is `unknown` with the reason: never proved;
- a kernel none of whose default instances reached MIR (no proof can prove it)
  is compiled in the default configuration only: its instances there and
  `kernel{...}`, `unknown` with the reason.
"""
from __future__ import annotations

import dataclasses

from .scan.configuration import configuration_ident, configuration_label


def _definition(name: str) -> str:
    return name.split("[")[0]


def _signature(results) -> tuple:
    """What a proof of a kernel's instances reads: names, MIR and errors."""
    return tuple((k.name, k.mir, k.opaque, k.error.render() if k.error is not None else None,
                  k.unknown, k.opaque_refusal, k.covers, k.typing) for k in results)


def _renamed(kr, configuration):
    label, ident = configuration_label(configuration), configuration_ident(configuration)

    def name(n: str) -> str:
        d = _definition(n)
        return f"{d}{{{label}}}{n[len(d):]}"

    return dataclasses.replace(
        kr, name=name(kr.name),
        mir=dataclasses.replace(kr.mir, name=f"{kr.mir.name}__{ident}") if kr.mir is not None else None,
        opaque=dataclasses.replace(kr.opaque, name=f"{kr.opaque.name}__{ident}") if kr.opaque is not None else None,
        covers=tuple(name(c) for c in kr.covers))


def merge_configurations(runs, total: int, remainder, reached: frozenset):
    """One ModuleResult from `runs`, [(configuration, ModuleResult)] with the
    default configuration first; `total`: how many configurations the file has;
    `remainder(name, loc, why)`: the KernelResult of `kernel{...}`; `reached`: the
    kernels some default instance of which reached MIR, the only ones the runs after
    the first compiled (any other is its default instances and `kernel{...}`)."""
    first = runs[0][1]
    order: list[str] = []
    by_run: list[dict[str, list]] = []
    for _, result in runs:
        groups: dict[str, list] = {}
        for k in result.kernels:
            d = _definition(k.name)
            if d not in order:
                order.append(d)
            groups.setdefault(d, []).append(k)
        by_run.append(groups)
    every = total == len(runs)
    kernels = []
    for d in order:
        per_run = [groups.get(d, []) for groups in by_run]
        compiled_all = every and d in reached
        if compiled_all and all(_signature(r) == _signature(per_run[0]) for r in per_run[1:]):
            kernels.extend(per_run[0])
            continue
        for (configuration, _), results in zip(runs, per_run):
            kernels.extend(_renamed(k, configuration) for k in results)
        if not compiled_all:
            loc = next(r[0].loc for r in per_run if r)    # d came from one of the runs
            choices = ", ".join(sorted({c.name for c, _ in runs[0][0]}))
            why = (f"verikern compiled {len(runs)}, the default first, and proves nothing about the others"
                   if d in reached else "its default configuration reached no MIR, so the others were "
                   "not compiled and nothing is proved about them")
            kernels.append(remainder(f"{d}{{...}}", loc, (
                f"{d} may depend on the configuration choices {choices} (read from source), which have "
                f"{total} configurations; {why}")))
    seen, errors = set(), []
    for _, result in runs:
        for e in result.errors:
            if e.render() not in seen:
                seen.add(e.render())
                errors.append(e)
    imports = tuple(sorted({i for _, result in runs for i in result.imports}))
    return dataclasses.replace(first, kernels=kernels, errors=errors, imports=imports)
