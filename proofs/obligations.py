"""Proof obligations and their verdicts.

Invariant: `Status.PROVED` is only ever set from an `unsat` answer of a solver
on the obligation's negation under sound assumptions; everything the prover
cannot decide is `Status.UNKNOWN` with a `reason`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from verikern.mir import facts
from verikern.mir.nodes import Assert, Atomic, Kernel, Load, SourceLoc

#: A MIR site: (block label, instruction index).
Point = tuple[str, int]


class ObligationKind(str, enum.Enum):
    BOUNDS = "bounds"
    RACE = "race"
    DIVERGENCE = "divergence"
    ASSERT = "assert"
    INVARIANT = "invariant"
    DIV_ZERO = "div-zero"
    UNINIT = "uninit"
    UNASSIGNED = "unassigned"


#: The obligation of each kind of MIR Assert (verikern.mir.nodes.ASSERT_KINDS).
ASSERT_OBLIGATION = {"assert": ObligationKind.ASSERT, "invariant": ObligationKind.INVARIANT,
                     "unassigned": ObligationKind.UNASSIGNED}


class Status(str, enum.Enum):
    PROVED = "proved"
    FAILED = "failed"
    UNKNOWN = "unknown"


class KernelStatus(str, enum.Enum):
    PROVED = "proved"
    FAILED = "failed"
    UNKNOWN = "unknown"
    ERROR = "error"


@dataclass(frozen=True)
class ObligationSpec:
    """What to prove, before any solving: kind, where, and the sites involved
    (for races `other` is the second access; for bounds `dim` the index)."""

    kind: ObligationKind
    loc: SourceLoc
    site: Point
    other: Point | None = None
    dim: int = 0
    other_loc: SourceLoc | None = None


def obligation_id(spec: ObligationSpec) -> str:
    """A stable, readable id of an obligation: `kind@line:col`, with `#dim`
    for a bounds obligation's index and `+line:col` for a race's second
    access (used by `emit --ir smt2 --obligation`, the C encoder's assert
    messages and cross-checks)."""
    out = f"{spec.kind.value}@{spec.loc.line}:{spec.loc.col}"
    if spec.kind is ObligationKind.BOUNDS:
        out += f"#{spec.dim}"
    if spec.other_loc is not None:
        out += f"+{spec.other_loc.line}:{spec.other_loc.col}"
    return out


@dataclass(frozen=True)
class Counterexample:
    """A concrete launch that violates an obligation.

    dims: launch dims (tuple, one per launch dimension); block_dim;
    threads: the offending threads as (block, thread_idx) pairs (one or two);
    scalars: scalar parameter values by name; shapes: array shapes by name
    (logical dims); arrays: contents that matter, by name, as
    {flat_index: value} maps (everything else zero);
    facts: extra named values (the index, the element, the loop counter...);
    abstracted: the violating path went through an abstraction (a havocked
    loop, a float, memory the kernel writes), so only a replay can show the
    violation is real.
    """

    dims: tuple[int, ...]
    block_dim: int
    threads: tuple[tuple[int, int], ...]
    scalars: dict[str, Any] = field(default_factory=dict)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    arrays: dict[str, dict[int, Any]] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    abstracted: bool = False

    def to_json(self) -> dict:
        return {
            "dims": list(self.dims),
            "block_dim": self.block_dim,
            "threads": [{"block": b, "thread": t} for b, t in self.threads],
            "scalars": dict(self.scalars),
            "shapes": {k: list(v) for k, v in self.shapes.items()},
            "arrays": {k: {str(i): v for i, v in m.items()} for k, m in self.arrays.items()},
            "facts": dict(self.facts),
            "abstracted": self.abstracted,
        }


@dataclass(frozen=True)
class Obligation:
    """One property to prove at one place.

    loc: the access/barrier/assert/division site; for races, loc is the first
    access and `other_loc` the second. message: one line saying what is
    claimed or, when failed, what goes wrong ("threads 3 and 4 of block 0 both
    access sh[4] ..."). spec: the ObligationSpec it decides (None for one
    built by hand); decisions read it, never the message.
    """

    kind: ObligationKind
    loc: SourceLoc
    status: Status
    message: str
    counterexample: Counterexample | None = None
    confirmed: bool | None = None
    reason: str | None = None
    other_loc: SourceLoc | None = None
    seconds: float = 0.0
    spec: ObligationSpec | None = field(default=None, compare=False, repr=False)
    #: second solvers that re-decided every query this verdict rests on alike
    cross_checked: tuple[str, ...] = ()
    #: queries this verdict rests on where a second solver answered otherwise
    disagreements: tuple[str, ...] = ()
    #: engines whose concrete run reproduced this failure ("simulator", "c")
    confirmed_by: tuple[str, ...] = ()
    #: each deciding engine's verdict, (engine, status), under --engine z3,cbmc
    engines: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict:
        return {
            "kind": self.kind.value,
            "status": self.status.value,
            "line": self.loc.line,
            "col": self.loc.col,
            "message": self.message,
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "confirmed": self.confirmed,
            "reason": self.reason,
            **({"cross_checked_by": list(self.cross_checked)} if self.cross_checked else {}),
            **({"disagreements": list(self.disagreements)} if self.disagreements else {}),
            **({"confirmed_by": list(self.confirmed_by)} if self.confirmed_by else {}),
            **({"engines": dict(self.engines)} if self.engines else {}),
        }


@dataclass(frozen=True)
class ExampleLaunch:
    """One launch the kernel's contracts admit: `dims` and `block_dim`;
    `scalars` by parameter name (captured constants as `@name`), `shapes` by
    array name (logical dims), `arrays` the contents a content contract needs
    ({flat index: value}; every other element may be anything)."""

    dims: tuple[int, ...]
    block_dim: int
    scalars: dict
    shapes: dict
    arrays: dict

    def to_json(self) -> dict:
        return {"dims": list(self.dims), "block_dim": self.block_dim,
                "scalars": dict(self.scalars),
                "shapes": {k: list(v) for k, v in self.shapes.items()},
                "arrays": {k: {str(i): v for i, v in m.items()} for k, m in self.arrays.items()}}

    @classmethod
    def from_json(cls, d: dict) -> "ExampleLaunch":
        return cls(tuple(d["dims"]), int(d["block_dim"]), dict(d["scalars"]),
                   {k: tuple(v) for k, v in d["shapes"].items()},
                   {k: {int(i): v for i, v in m.items()} for k, m in d["arrays"].items()})

    def text(self) -> str:
        """`dim=8, block_dim=32, x.shape=(8,), ..., a=0, captured width=3`."""
        dim = self.dims[0] if len(self.dims) == 1 else tuple(self.dims)
        parts = [f"dim={dim}", f"block_dim={self.block_dim}"]
        parts += [f"{k}.shape={tuple(v)}" for k, v in self.shapes.items()]
        own = [f"{k}={v}" for k, v in self.scalars.items() if not k.startswith("@")]
        captured = [f"{k[1:]}={v}" for k, v in self.scalars.items() if k.startswith("@")]
        parts += own + ([f"captured {', '.join(captured)}"] if captured else [])
        parts += [f"{k} holding {len(m)} given element(s)" for k, m in self.arrays.items() if m]
        return ", ".join(parts)


@dataclass(frozen=True)
class KernelReport:
    """The verdict for one kernel: status is the worst obligation status
    (failed > unknown > proved), or ERROR with `error` (rendered KernelError).
    `scope` and `cached` are rendered by proofs.reporting.render, not by `to_json`.
    A suggested contract never changes `status`."""

    file: str
    kernel: str
    status: KernelStatus
    seconds: float
    obligations: tuple[Obligation, ...] = ()
    error: str | None = None
    line: int = 0
    #: What the verdict rests on (proofs.reporting.scope.Scope), when the kernel compiled.
    scope: Any = None
    #: True when the verdict was read from the proof cache (verikern.app.cache).
    cached: bool = False
    #: A suggested contract for a failed kernel (proofs.deciding.suggest): its
    #: conjuncts as source text, in `vk.requires` syntax; empty when none was found.
    suggested_requires: tuple[str, ...] = ()
    #: The same as ready-to-paste `@vk.requires(lambda ...)` lines.
    suggested_decorators: tuple[str, ...] = ()
    #: Whether every failed and unknown obligation is proved under the
    #: suggestion (None: no suggestion). The status stays FAILED either way.
    proved_under_suggestion: bool | None = None
    #: When the verdict was computed (UTC, "YYYY-MM-DD HH:MM:SS UTC") and by
    #: which versions ((name, version) pairs): this run's, or the cached
    #: entry's run. Rendered only by the sign-off document (not in to_json,
    #: whose output stays the same on every run); not compared (not a verdict).
    computed_at: str | None = field(default=None, compare=False)
    computed_by: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    #: A launch the suggested contract admits (proofs.deciding.example_launch),
    #: solved on the kernel with the contract pasted in; None without a suggestion.
    suggested_example: ExampleLaunch | None = None
    #: A generic kernel's `kernel[...]` proved by a type-oblivious proof
    #: (frontend/check/generic_opaque.py): the instances it covers besides
    #: every instantiation not enumerated (None: no such proof).
    covers: tuple[str, ...] | None = None
    #: An instance proved by that proof (`kernel[...]`), not on its own: no obligations of its own.
    covered_by: str | None = None
    #: Why the suggested contract's verdict is unknown: the kernel's total work
    #: (`--kernel-budget`) ran out before its search or re-proof decided it (None:
    #: it did not); `proved_under_suggestion` is then never True.
    suggestion_unknown: str | None = None
    #: The z3 units the kernel's total was charged for this report (its proof, searches
    #: and re-proofs; 0 outside a total): what a cached copy charges again. Not a verdict.
    units: int = field(default=0, compare=False)
    #: The sha256 of the kernel's MIR text, less its source positions, with the suggested
    #: contract pasted, when this run's re-proof proved it (app/suggestion.py): a paste with
    #: the same MIR (the contract beside a typing premise, whose atoms leave no MIR) has
    #: that proof. Not in to_json; kept in the proof cache with the verdict it came with, so
    #: that a cached run's premise search reuses what a fresh run's does (the same units).
    pasted_mir_sha: str | None = field(default=None, compare=False)

    @staticmethod
    def summarize(obligations) -> KernelStatus:
        st = {o.status for o in obligations}
        if Status.FAILED in st:
            return KernelStatus.FAILED
        if Status.UNKNOWN in st:
            return KernelStatus.UNKNOWN
        return KernelStatus.PROVED

    def to_json(self) -> dict:
        d: dict[str, Any] = {
            "file": self.file,
            "kernel": self.kernel,
            "status": self.status.value,
            "seconds": round(self.seconds, 4),
            "obligations": [o.to_json() for o in self.obligations],
        }
        if self.error is not None:
            d["error"] = self.error
        if self.covers is not None or self.covered_by:
            d["type_oblivious"] = {"covers": list(self.covers)} if self.covers is not None \
                else {"covered_by": self.covered_by}
        if self.suggested_requires:
            d["suggested_requires"] = list(self.suggested_requires)
            d["suggested_decorators"] = list(self.suggested_decorators)
            d["proved_under_suggestion"] = self.proved_under_suggestion
            if self.suggested_example is not None:
                d["suggested_example"] = self.suggested_example.to_json()
        if self.suggestion_unknown is not None:
            d["suggestion_unknown"] = self.suggestion_unknown
        return d


def reads_shared(ins) -> bool:
    """A load or an atomic (which reads the old value) of a shared array: the
    sites of `uninit` obligations. An address-only load reads nothing."""
    return isinstance(ins, (Load, Atomic)) and ins.array.space == "shared" \
        and not (isinstance(ins, Load) and ins.address_only)


def enumerate_obligations(kernel: Kernel) -> list[ObligationSpec]:
    """Every obligation of docs/LANGUAGE.md section 5, in source order of sites.
    An address-only load (`type(a[i])`, see `Load`) has its bounds obligations
    and takes part in no race: it touches no memory."""
    specs: list[ObligationSpec] = []
    accesses: list[tuple[Point, facts.MemoryAccess]] = []
    for b in kernel.blocks:
        for i, ins in enumerate(b.instrs):
            site = (b.label, i)
            if facts.accesses_memory(ins):
                if not (isinstance(ins, Load) and ins.address_only):
                    accesses.append((site, ins))
                for k in range(ins.array.ndim):
                    specs.append(ObligationSpec(ObligationKind.BOUNDS, ins.loc, site, dim=k))
                if reads_shared(ins):
                    specs.append(ObligationSpec(ObligationKind.UNINIT, ins.loc, site))
            elif facts.may_trap(ins):
                specs.append(ObligationSpec(ObligationKind.DIV_ZERO, ins.loc, site))
            elif facts.is_barrier(ins):
                specs.append(ObligationSpec(ObligationKind.DIVERGENCE, ins.loc, site))
            elif isinstance(ins, Assert):
                specs.append(ObligationSpec(ASSERT_OBLIGATION[ins.kind], ins.loc, site))
    for x in range(len(accesses)):
        for y in range(x, len(accesses)):
            (s1, a), (s2, a2) = accesses[x], accesses[y]
            if a.array.name != a2.array.name or a.array.space != a2.array.space:
                continue
            if not (facts.writes_memory(a) or facts.writes_memory(a2)):
                continue
            if isinstance(a, Atomic) and isinstance(a2, Atomic):
                continue
            specs.append(ObligationSpec(ObligationKind.RACE, a.loc, s1, other=s2,
                                        other_loc=a2.loc))
    specs.sort(key=lambda s: (s.loc.line, s.loc.col, list(ObligationKind).index(s.kind)))
    return specs
