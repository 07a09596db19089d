"""Words for counterexamples: where integer arithmetic wrapped around on the
way to an index (with the intermediate values), and array elements named as
the source names them (`pos[62].y`, not a flat index).

Invariant: these functions only read a model the prover already has; they
never decide anything (a note is text; decisions read Obligation fields).
Every value quoted is the model's: an exact result that differs from the
machine result the model gives is a wrap-around of that operation.
"""
from __future__ import annotations

from typing import Callable

from verikern.encoders.smt.semantics import model_int
from verikern.mir.nodes import ArrayRef, BinOp, Cast, Const, Value
from verikern.mir.ops import UNBOUNDED_RING, symbols

#: the ops whose wrap-around a message explains, with their source symbols
_SYMBOLS = {op: symbol for op, symbol in symbols("binary").items()
            if op in ("add", "sub", "mul", "shl")}
#: vector components by position (vec2/vec3/vec4 and quaternions)
_COMPONENTS = "xyzw"


def _exact(op: str, a: int, b: int, bits: int) -> int | None:
    """The mathematical result of `a op b`, or None when the operation has
    no wrap to report (a shift by a negative or too large amount)."""
    if op in UNBOUNDED_RING:
        return UNBOUNDED_RING[op](a, b)
    if op == "shl" and 0 <= b < bits:
        return a << b
    return None


def wrap_notes(defs: dict, enc, model, op, name: Callable[[object], str],
               depth: int = 8) -> list[str]:
    """For each integer +, -, *, << and integer-to-integer cast in the
    definition tree of `op` (`defs`: value id -> defining instruction),
    operands first, whose exact result differs from its machine value in
    `model` (thread copy `enc`): "i * width = 4294967296 wraps to 0 in
    int32". `name(operand)` renders an operand. Empty when nothing wrapped."""
    out: list[str] = []
    seen: set[int] = set()

    def value(o):
        if isinstance(o, Const):
            return int(o.value)
        return int(model_int(model, enc.term(o), o.type))

    def walk(o, left: int) -> None:
        if left < 0 or not isinstance(o, Value) or o.id in seen:
            return
        seen.add(o.id)
        ins = defs.get(o.id)
        t = getattr(getattr(ins, "result", None), "type", None)
        if t is None or not t.is_int or t.is_bool:
            return
        try:
            if isinstance(ins, BinOp) and ins.op in _SYMBOLS:
                walk(ins.lhs, left - 1)
                walk(ins.rhs, left - 1)
                exact = _exact(ins.op, value(ins.lhs), value(ins.rhs), t.bits)
                got = value(ins.result)
                if exact is not None and exact != got:
                    out.append(f"{name(ins.lhs)} {_SYMBOLS[ins.op]} {name(ins.rhs)} = {exact} "
                               f"wraps to {got} in {t}")
            elif isinstance(ins, Cast) and ins.operand.type.is_int \
                    and not ins.operand.type.is_bool:
                walk(ins.operand, left - 1)
                before, got = value(ins.operand), value(ins.result)
                if before != got:
                    out.append(f"{t}({name(ins.operand)}) with {name(ins.operand)} = {before} "
                               f"wraps to {got}")
        except Exception:        # a value the encoding does not hold: no note
            return

    walk(op, depth)
    return out


def element_text(array: ArrayRef, index) -> str:
    """`array` at the full index `index` (logical dims, then the components
    of a vector/matrix element) as the source writes it: `pos[62].y` for a
    vector, `m[3][1][2]` for a matrix, `a[4, 5]` for a 2-D array."""
    logical = ", ".join(str(i) for i in index[:array.ndim])
    inner = list(index[array.ndim:])
    text = f"{array.name}[{logical}]"
    if not inner or not array.inner:
        return text
    if len(array.inner) == 1 and array.inner[0] <= len(_COMPONENTS) and \
            0 <= inner[0] < array.inner[0]:
        return f"{text}.{_COMPONENTS[inner[0]]}"
    return text + "".join(f"[{i}]" for i in inner)
