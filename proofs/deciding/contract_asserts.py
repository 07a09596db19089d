"""Asserted shape relations as contract candidates: a kernel that checks a
relation between its lengths and parameters with `assert` (warp-simdata's
`assert out.shape[0] == a.shape[0] + 1, "one more element"`) relies on the
host code for it -- Warp compiles kernel asserts only in debug builds -- and
the contract that states it is the assertion itself, as a `vk.requires`
(proofs.deciding.suggest searches it first for that assert obligation).

The theorem behind it is the ordinary one of any requires: under a
precondition P, an assert of P at a point every path reaches from the entry
without writing what P reads (lengths, launch dimensions and int32
parameters are never written) holds. The suggestion search still proves it
like any candidate (z3 `unsat` on the kernel with the requires added), and
the re-proof on the pasted source decides it again; nothing here is trusted.

Invariants:
- only comparisons whose both sides are int32 terms a decorator lambda can
  name (`x.shape[k]`, `vk.launch_dim(k)`, an int32 parameter, a literal, each
  times a constant and plus or minus a constant) become atoms, and each
  atom's text compiles to the same int32 arithmetic as the asserted one
  (contract_atoms.requires_instrs: `add`/`sub`/`mul` of int32 values,
  wrapping as the kernel's own does), so the requires says what the assert
  says, no more;
- a conjunction (`a and b`, compiled to a bool `and`) gives one atom per
  side; any other condition gives none.
"""
from __future__ import annotations

from dataclasses import replace

from verikern.mir.nodes import Assert, BinOp, Compare, Const, Kernel, ShapeOf, Special, Value
from verikern.mir.types import I32
from verikern.proofs.deciding.contract_atoms import Atom, Term, param_term
from verikern.proofs.obligations import ObligationKind, ObligationSpec

#: The family (rank) of an asserted relation: before every other template.
ASSERTED_FAMILY = -3
_COMPARISONS = ("eq", "le", "lt", "gt", "ge", "ne")
_I32_MAX = 2 ** 31 - 1


def asserted_atoms(kernel: Kernel, spec: ObligationSpec, walker) -> list[Atom]:
    """The candidates stating what an ASSERT obligation's condition compares
    (module docstring); empty for any other obligation or condition.
    `walker`: contract_templates.walker(kernel) (its definitions and int32
    parameters)."""
    if spec.kind is not ObligationKind.ASSERT:
        return []
    lbl, pos = spec.site
    ins = kernel.block(lbl).instrs[pos]
    if not isinstance(ins, Assert):
        return []
    return _conjuncts(kernel, walker, ins.cond, depth=0)


def _conjuncts(kernel: Kernel, w, cond, depth: int) -> list[Atom]:
    ins = w.defs.get(cond.id) if isinstance(cond, Value) and depth < 8 else None
    if isinstance(ins, BinOp) and ins.op == "and" and ins.result.type.is_bool:
        return _conjuncts(kernel, w, ins.lhs, depth + 1) + _conjuncts(kernel, w, ins.rhs, depth + 1)
    if not isinstance(ins, Compare) or ins.op not in _COMPARISONS:
        return []
    lhs, rhs = _term(kernel, w, ins.lhs, 0), _term(kernel, w, ins.rhs, 0)
    if lhs is None or rhs is None:
        return []
    return [Atom(ins.op, lhs, rhs, family=ASSERTED_FAMILY)]


def _term(kernel: Kernel, w, op, depth: int) -> Term | None:
    """The int32 term `op` is (module docstring), else None."""
    if getattr(op, "type", None) != I32 or depth > 4:
        return None
    if isinstance(op, Const):
        return Term("const", index=int(op.value)) if 0 <= int(op.value) <= _I32_MAX else None
    if not isinstance(op, Value):
        return None
    if op.id in w.params:
        return param_term(kernel, w.params[op.id])
    ins = w.defs.get(op.id)
    if isinstance(ins, ShapeOf) and ins.array.space == "global":
        return Term("shape", ins.array.name, ins.dim)
    if isinstance(ins, Special) and ins.kind == "launch_dim":
        return Term("launch", index=ins.dim)
    if isinstance(ins, BinOp) and ins.op in ("add", "sub", "mul"):
        return _arith(kernel, w, ins, depth)
    return None


def _arith(kernel: Kernel, w, ins: BinOp, depth: int) -> Term | None:
    """`t + c`, `t - c` (t without an offset yet) and `c * t` (t a plain term)."""
    consts = [x for x in (ins.lhs, ins.rhs) if isinstance(x, Const)]
    rest = [x for x in (ins.lhs, ins.rhs) if not isinstance(x, Const)]
    if len(consts) != 1 or len(rest) != 1:
        return None
    c = int(consts[0].value)
    inner = _term(kernel, w, rest[0], depth + 1)
    if inner is None or inner.kind == "const" or not 0 < c <= 2 ** 20:
        return None
    if ins.op == "mul":
        plain = inner.scale == 1 and inner.offset == 0 and inner.minus is None
        return replace(inner, scale=c) if plain else None
    if inner.offset != 0 or (ins.op == "sub" and ins.rhs is not consts[0]):
        return None          # `c - t` is no term of this form
    return replace(inner, offset=c if ins.op == "add" else -c)
