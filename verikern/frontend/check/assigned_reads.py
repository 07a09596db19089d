"""Reads of a local variable that only some paths assign.

Warp 1.19 builds them (`warp/_src/codegen.py` `emit_If`): a symbol first
assigned in one branch of an `if` keeps that branch's version after it, and
one first assigned in a loop body keeps the body's version after the loop;
every version is a C++ local declared at the top of the function, so where
the branch (or the loop) did not run the read sees the declaration's value:
zero for vectors, matrices and quaternions (their default constructors
value-initialise), indeterminate for scalars (reading one is undefined
behaviour, and the C++ compiler may then drop the branch's test altogether).
The `else` branch does not see a symbol its `if` branch introduced, and a
read textually before every assignment is Warp's "undefined symbol".

verikern accepts the same kernels and makes every such read an obligation
of kind `unassigned`: the variable `v` gets a bool local (`$assigned_v`,
false at the start, set true where a path first assigns `v`) and the read
asserts it (a MIR `Assert` of kind "unassigned"). Correlated conditions
(`if flag: v = ...` then `if flag: ... v ...`) are proved; a read on a path
that did not assign fails with a counterexample the simulator replays (it
raises UnassignedReadError at the read).

Invariant (of the checker state): `defined` holds the variables every path
to this point assigned (no check where they are read), `maybe_defined` those
some path assigned (Warp's visible symbols); where `v` is in `defined` its
flag is true on every path, since the flag is set at each assignment of `v`
outside `defined` (an augmented `v += e` reads `v` first, so there the check
already holds the flag true and sets nothing).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from verikern.hir import nodes as H
from verikern.hir.types import BOOL, MatrixType, ScalarType, VectorType, component_count

if TYPE_CHECKING:
    from .host import CheckerHost

FLAG_PREFIX = "$assigned_"


def flag_name(name: str) -> str:
    """The bool local that holds whether `name` was assigned on the path taken."""
    return FLAG_PREFIX + name


def typed_zero(t, loc) -> H.Expr | None:
    """A zero of a scalar, vector or matrix type (None for any other type)."""
    if isinstance(t, ScalarType):
        return H.Literal(False if t.is_bool else (0.0 if t.is_float else 0), t, loc)
    if isinstance(t, (VectorType, MatrixType)):
        return H.BuiltinCall("construct", tuple(H.Literal(0.0, t.dtype, loc)
                                                for _ in range(component_count(t))), t, loc)
    return None


def maybe_assigned_read(chk: CheckerHost, name: str, node) -> H.LocalRef | None:
    """The checked read of `name` where some path but not every one assigned
    it (None where Warp would not build it either: no path assigned it yet,
    or it is a struct, whose leaves have no zero here). On the first check of
    a body no flag exists yet: the read is recorded and the body is checked
    again with a flag for it (`BodyChecker.check_kernel`)."""
    t = chk.var_types.get(name)
    if name not in chk.maybe_defined or name.startswith("$") or t is None or typed_zero(t, None) is None:
        return None
    chk.unassigned_reads.add(name)
    flag = flag_name(name) if name in chk.shadowed else None
    return H.LocalRef(name, t, chk.loc(node), flag)


def note_assignment(chk: CheckerHost, name: str, read_first: bool = False) -> None:
    """`name` is assigned here: where it was not definitely assigned before,
    its flag is set after the statement (unless the statement read it first,
    a check that already holds the flag true)."""
    chk.maybe_defined.add(name)
    if name in chk.shadowed and name not in chk.defined and not read_first:
        chk.pending_flags.append(name)


def flag_sets(chk: CheckerHost, loc) -> list:
    """The flag assignments the statement just checked made due."""
    out = [H.Assign(flag_name(n), H.Literal(True, BOOL, loc), loc)
           for n in dict.fromkeys(chk.pending_flags)]
    chk.pending_flags.clear()
    return out


def with_flag_starts(chk: CheckerHost, body: list, loc) -> list:
    """`body` with, after its leading requires, every flag false and its
    variable zero (the value Warp's declaration gives a vector; a scalar's is
    never observed: a read where it holds fails its obligation first)."""
    starts: list = []
    for name in sorted(chk.shadowed):
        starts.append(H.Assign(flag_name(name), H.Literal(False, BOOL, loc), loc))
        zero = typed_zero(chk.var_types[name], loc)
        assert zero is not None     # maybe_assigned_read shadows only such types
        starts.append(H.Assign(name, zero, loc))
    k = 0
    while k < len(body) and isinstance(body[k], (H.RequiresStmt, H.RequiresArrayStmt)):
        k += 1
    return body[:k] + starts + body[k:]


def needs_another_check(chk: CheckerHost) -> frozenset[str] | None:
    """The variables to shadow in another check of the body, or None when
    every read of a maybe-assigned variable already has its flag."""
    missing = chk.unassigned_reads - chk.shadowed
    return frozenset(chk.shadowed | missing) if missing else None
