"""What a verdict rests on: the scope that every report states per kernel.

A `Scope` records, for one proved kernel, the contracts the prover assumed
(each `vk.requires` and content contract, as its source text), the launch it
was fixed to (`--dim`, `--block-dim` or the kernel's own block size), the
solver budget, and the sha256 of the source file and of the kernel's MIR
text (`verikern.mir.printer.format_kernel`). Tool-wide facts (hardware
limits, the array-size bound, what verikern does not check, versions) are
constants and functions here, so every renderer states the same thing.

Invariants: a Scope is built only from the compiled MIR, the options and the
file's bytes (never by executing the file); `HARDWARE_LIMITS` and
`array_bound` say exactly what encoders.smt.launch assumes (see its module
docstring); `NOT_CHECKED` lists every property a `proved` verdict does not
cover, and no property an obligation kind decides (reads of shared memory
nobody wrote are the `uninit` obligations). A Scope is JSON-round-trippable (`to_json` / `from_json`).
"""
from __future__ import annotations

import ast
import hashlib
import os
import platform
import sys
from dataclasses import dataclass
from datetime import datetime, timezone

from verikern.version import __version__
from verikern.mir.printer import format_kernel
from verikern.mir.nodes import Requires, RequiresArray
from .parsed import parsed_source
from verikern.mir.types import HELD_LENGTHS

#: What every proof assumes about the hardware (docs/LANGUAGE.md section 5).
HARDWARE_LIMITS = (
    "1 <= block_dim <= 1024",
    "every launch dimension >= 1",
    "total thread count < 2**31",
    "grid_dim = ceil(launch size / block_dim); launch size % block_dim == 0 when the kernel "
    "uses shared memory or barriers",
)


def bytes_text(n: int) -> str:
    """2**40 for a power of two, else the decimal number."""
    return f"2**{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def array_bound(max_array_bytes: int | None = None) -> str:
    """The array-size bound the prover assumes (encoders.smt.launch), in
    words, for `--max-array-bytes` (None: the default, 2**40)."""
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3 (encoders.smt)

    n = int(max_array_bytes) if max_array_bytes is not None else DEFAULT_MAX_ARRAY_BYTES
    return (f"every array dimension is in [0, 2**31) and every array holds at most "
            f"{bytes_text(n)} bytes ({n} bytes: the product of its dims times its element size, "
            f"vector and matrix components included; --max-array-bytes)")


#: The array-size bound of the default `--max-array-bytes` (2**40 bytes).
ARRAY_BOUND = array_bound()
#: What a `proved` verdict does not establish.
NOT_CHECKED = (
    "float accuracy: float values are unknown to the prover unless a property needs them",
    "termination: a proof covers the accesses that happen; it does not show that loops end",
    "whether a launch obeys the requires: vk.launch and vk.check_launch check that at run time",
    "every obligation that ended 'unknown' is not established",
)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str) -> str | None:
    """The sha256 of the file's bytes, or None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return sha256_bytes(fh.read())
    except OSError:
        return None


def mir_text(kernel_mir) -> str:
    return format_kernel(kernel_mir)


def versions() -> dict[str, str]:
    """Versions of the tool, its solver(s) and the platform (the cross-check
    solver too, when `--cross-check` named one)."""
    import z3  # lazy: z3, only to name its version

    from verikern.proofs.deciding.crosscheck import version  # lazy: z3 (deciding.crosscheck)
    from verikern.proofs.deciding.session import current_settings  # lazy: z3 (deciding.session)

    out = {"verikern": __version__, "z3": z3.get_version_string(),
           "python": platform.python_version(), "platform": platform.platform(terse=True),
           "implementation": sys.implementation.name}
    second = current_settings().cross_check
    if second:
        out[second] = version(second) or "unknown"
    return out


def computed_stamp() -> tuple[str, tuple[tuple[str, str], ...]]:
    """(now in UTC, the versions that decide verdicts) for a verdict computed now
    (KernelReport.computed_at / computed_by; provenance only, never a verdict)."""
    v = versions()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return when, tuple((k, v[k]) for k in ("verikern", "z3", "python"))


#: The Contract kind of a module attribute the kernel reads as a constant
#: (mir.nodes.ModuleConstantRead): an assumption, not a requires.
MODULE_CONSTANT = "module constant"
#: The Contract kind of a generic kernel's typing premise (mir.nodes.TypingPremiseRead):
#: which instantiations the proof is for, not a requires on values.
TYPING_PREMISE = "typing premise"
#: the Contract kinds that are no requires (a launch's argument values are not restricted)
NOT_REQUIRES = (MODULE_CONSTANT, TYPING_PREMISE)


@dataclass(frozen=True)
class Contract:
    """One assumed contract: `kind` is "requires" or the content contract's
    kind ("all_in_range", "all_distinct"); `text` its normalised source text."""

    kind: str
    line: int
    col: int
    text: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "line": self.line, "col": self.col, "text": self.text}


@dataclass(frozen=True)
class Scope:
    """The assumptions and identity of one kernel's proof (see module docstring).

    dims: the fixed launch dims (None: every launch the requires admit);
    block_dim: the fixed block size and `block_dim_from` where it came from
    ("option", "kernel"; None: every block size); budget: million z3
    resource units per check; max_array_bytes: the bound on every array's
    size in bytes (`--max-array-bytes`)."""

    contracts: tuple[Contract, ...]
    dims: tuple[int, ...] | None
    block_dim: int | None
    block_dim_from: str | None
    launch_ndim: int
    budget: float
    mir_sha256: str
    source_sha256: str | None
    max_array_bytes: int = 1 << 40
    kernel_budget: float | None = None   # --kernel-budget (million units); None: its default

    def to_json(self) -> dict:
        from verikern.proofs.deciding.budget import MEGA, kernel_total_units  # lazy: z3 (deciding.budget)

        per_check = int(self.budget * MEGA)
        return {
            "contracts": [c.to_json() for c in self.contracts],
            "launch": {"dims": list(self.dims) if self.dims is not None else None,
                       "block_dim": self.block_dim, "block_dim_from": self.block_dim_from,
                       "launch_ndim": self.launch_ndim},
            "hardware_limits": list(HARDWARE_LIMITS),
            "array_bound": array_bound(self.max_array_bytes),
            "max_array_bytes": self.max_array_bytes,
            "not_checked": list(NOT_CHECKED),
            "budget": {"per_check_million_units": self.budget,
                       "kernel_total_units": kernel_total_units(self.kernel_budget, per_check),
                       "exact_search_units": min(10 * MEGA, per_check)},
            "mir_sha256": self.mir_sha256,
            "source_sha256": self.source_sha256,
        }

    @classmethod
    def from_json(cls, d: dict) -> "Scope":
        launch = d["launch"]
        return cls(tuple(Contract(c["kind"], c["line"], c["col"], c["text"]) for c in d["contracts"]),
                   tuple(launch["dims"]) if launch["dims"] is not None else None,
                   launch["block_dim"], launch["block_dim_from"], launch["launch_ndim"],
                   float(d["budget"]["per_check_million_units"]), d["mir_sha256"], d["source_sha256"],
                   int(d.get("max_array_bytes", 1 << 40)),
                   int(d["budget"]["kernel_total_units"]) / 1e6 if "kernel_total_units" in d["budget"] else None)

    def assumption_lines(self) -> list[str]:
        """The assumptions in words, one per line (text, Markdown and HTML reports)."""
        out = [f"requires {c.text}  (line {c.line})" if c.kind == "requires"
               else f"{c.kind} {c.text}  (line {c.line})" if c.kind == MODULE_CONSTANT
               else f"{c.kind}: {c.text}  (line {c.line})" if c.kind == TYPING_PREMISE
               else f"{c.kind} contract {c.text}  (line {c.line})" for c in self.contracts]
        requires = [c for c in self.contracts if c.kind not in NOT_REQUIRES]
        every = f"every {self.launch_ndim}-D launch"
        if self.dims is not None:
            dims = f"launch dims fixed to {tuple(self.dims) if len(self.dims) > 1 else self.dims[0]}"
            if not requires:
                out.append("no requires: every argument")
        elif requires:
            dims = f"{every} and argument the requires admit"
        else:
            dims = f"no requires: {every} and every argument"
        block = (f"block_dim fixed to {self.block_dim} (by the {self.block_dim_from})"
                 if self.block_dim is not None else "every block_dim from 1 to 1024")
        out += [dims, block, "hardware: " + "; ".join(HARDWARE_LIMITS),
                "arrays: " + array_bound(self.max_array_bytes)]
        return out


def contracts_of(kernel_mir, source: str | None) -> tuple[Contract, ...]:
    """Every requires / content contract of the kernel, in order, one per
    source site, with its source text (the call, or a decorator lambda's body)."""

    tree = None
    if source is not None:
        try:
            tree = parsed_source(source)    # shared with the file's other kernels: only read
        except SyntaxError:
            tree = None
    seen: set[tuple[str, int, int]] = set()
    out = []
    held: dict[tuple[int, int], list[str]] = {}   # an annotation's site -> its held lengths arrays
    for block in kernel_mir.blocks:
        for ins in block.instrs:
            if isinstance(ins, RequiresArray) and ins.array.name.endswith("." + HELD_LENGTHS):
                held.setdefault((ins.loc.line, ins.loc.col), []).append(ins.array.name)
    for block in kernel_mir.blocks:
        for ins in block.instrs:
            if not isinstance(ins, (Requires, RequiresArray)):
                continue
            kind = "requires" if isinstance(ins, Requires) else ins.kind
            key = (kind, ins.loc.line, ins.loc.col)
            if key in seen:
                continue
            seen.add(key)
            param = _annotated_param(tree, ins.loc.line, ins.loc.col)
            text = (_struct_contract_text(kind, param, held.get((ins.loc.line, ins.loc.col), []))
                    if param is not None else _text_at(tree, source, ins.loc.line, ins.loc.col))
            out.append(Contract(kind, ins.loc.line, ins.loc.col, text))
    for read in kernel_mir.module_constants:
        value = read.value.item() if hasattr(read.value, "item") else read.value   # numpy scalar
        where = os.path.relpath(read.defined_in) if os.path.isabs(read.defined_in) else read.defined_in
        where = read.defined_in if where.startswith("..") else where
        out.append(Contract(MODULE_CONSTANT, read.loc.line, read.loc.col,
                            f"{read.text} == {value!r} (its value in {where}; "
                            "a value the program sets before Warp builds the kernel is not covered)"))
    premise = kernel_mir.typing_premise
    if premise is not None:
        out.append(Contract(TYPING_PREMISE, premise.loc.line, premise.loc.col, premise_text(premise)))
    return tuple(out)


def _annotated_param(tree, line: int, col: int) -> str | None:
    """The kernel parameter whose annotation starts at line:col (1-based col), else None:
    the contracts located there are the ones its struct type implies (check/structs.py
    `struct_shape_requires`), which no source text states."""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.arg) and node.annotation is not None \
                and node.annotation.lineno == line and node.annotation.col_offset + 1 == col:
            return node.arg
    return None


def _struct_contract_text(kind: str, param: str, lengths: list[str]) -> str:
    """What the contracts a struct parameter's type implies assume, in words: the fields
    of each array of structs in it have one shape, and the arrays its elements hold are
    padded to a width W below 2**31 - 1 (`requires`); each held array's length, one per
    element in its lengths array `X.len`, is in 0..W (`all_in_range`)."""
    if kind == "all_in_range":
        leaves = ", ".join(n[:-len(HELD_LENGTHS) - 1] for n in lengths) or f"the arrays held in {param}"
        return f"the length of {leaves} in each element of its struct array is in 0..W"
    held = "; the arrays its elements hold are padded to a width W below 2**31 - 1" if lengths else ""
    return f"{param}'s struct arrays: the fields of each have one shape{held}"


def premise_text(premise) -> str:
    """A typing premise in words: the premise, the instantiations it admits (each
    with a verdict of its own), and what it leaves out."""
    admitted = ", ".join(premise.admitted) or "none"
    return (f"{premise.text} (the kernel is proved only for the instantiations it admits: "
            f"{admitted}, each with its own verdict; the other instantiations Warp can build are "
            "not covered, and vk.launch refuses them)")


def _text_at(tree, source: str | None, line: int, col: int) -> str:
    """The source text of the largest expression starting at line:col (1-based col)."""
    best = None
    if tree is not None and source is not None:   # (the tree is parsed from the source)
        for node in ast.walk(tree):
            # a kernel factory's relation between captures (frontend/scan/factories.py):
            # the requires is `name == value`, located at the value
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and node.value.lineno == line and node.value.col_offset + 1 == col:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                value = ast.get_source_segment(source, node.value)
                if isinstance(target, ast.Name) and value is not None:
                    return " ".join(f"{target.id} == {value}".split())
            # an environment setting's bounds (frontend/scan/settings.py): located at the
            # target of its last module-level binding
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].lineno == line and node.targets[0].col_offset + 1 == col:
                return (f"{node.targets[0].id}: a module setting, every int32 value "
                        "its bindings allow")
            if isinstance(node, ast.expr) and node.lineno == line and node.col_offset + 1 == col:
                if (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                        and getattr(node.func, "attr", getattr(node.func, "id", "")) == "requires"):
                    node = node.args[0]          # vk.requires(cond): the condition
                seg = ast.get_source_segment(source, node)
                if seg is not None and (best is None or len(seg) > len(best)):
                    best = seg
    if best is None and source is not None:
        lines = source.splitlines()
        best = lines[line - 1] if 1 <= line <= len(lines) else "<source unavailable>"
    return " ".join((best or "<source unavailable>").split())


def scope_of(kernel_mir, *, source: str | None, source_sha256: str | None, dims, block_dim,
             budget: float | None, max_array_bytes: int | None = None,
             kernel_budget: float | None = None) -> Scope:
    """The Scope of proving `kernel_mir` with these options (`budget`, `max_array_bytes`,
    `kernel_budget` (--kernel-budget): None = the default)."""
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3 (encoders.smt)
    from verikern.proofs.deciding.budget import (  # lazy: z3 (deciding.budget)
        DEFAULT_CHECK_RLIMIT, MEGA, kernel_total_units, per_check_units)

    if block_dim is not None:
        fixed, origin = int(block_dim), "option"
    elif kernel_mir.block_dim is not None:
        fixed, origin = int(kernel_mir.block_dim), "kernel"
    else:
        fixed, origin = None, None
    return Scope(contracts_of(kernel_mir, source),
                 tuple(int(d) for d in dims) if dims is not None else None,
                 fixed, origin, kernel_mir.launch_ndim,
                 float(budget) if budget is not None else DEFAULT_CHECK_RLIMIT / MEGA,
                 sha256_bytes(mir_text(kernel_mir).encode()), source_sha256,
                 int(max_array_bytes) if max_array_bytes is not None else DEFAULT_MAX_ARRAY_BYTES,
                 # the total the run has, stated as a number (the default's too), so that a
                 # report read back from JSON or the cache is equal to the one made
                 kernel_total_units(kernel_budget, per_check_units(budget)) / MEGA)
