"""The pass protocol and the rewriting helpers passes share.

Invariant: a pass takes a verified Kernel and returns a verified Kernel with
the same observable behaviour and the same obligations: it never removes a
Load, Store, Atomic, Barrier, Assert, Requires or RequiresArray, and never
an integer division whose divisor may be zero.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Protocol

from ..nodes import Assert, Block, Const, Kernel, LoopInfo, Phi, Value, result_of


class Pass(Protocol):
    name: str

    def run(self, kernel: Kernel) -> Kernel: ...


def _map_operand(x, f):
    if isinstance(x, Value):
        return f(x)
    if isinstance(x, Const):
        return x
    if isinstance(x, tuple):
        return tuple(_map_operand(e, f) for e in x)
    return x


#: fields of an instruction that never hold a used Value
_NOT_OPERAND_FIELDS = frozenset(("result", "loc", "array", "op", "kind", "message", "dim"))
#: instruction class -> the names of the fields `rewrite_instr` maps
_OPERAND_FIELDS: dict[type, tuple[str, ...]] = {}


def _operand_fields(cls) -> tuple[str, ...]:
    names = _OPERAND_FIELDS.get(cls)
    if names is None:
        names = _OPERAND_FIELDS[cls] = tuple(
            fld.name for fld in dataclasses.fields(cls) if fld.name not in _NOT_OPERAND_FIELDS)
    return names


def rewrite_instr(ins, f: Callable[[Value], object]):
    """`ins` with every used Value v replaced by f(v) (its result untouched);
    `ins` itself when nothing changes."""
    changes = {}
    for name in _operand_fields(type(ins)):
        old = getattr(ins, name)
        new = _map_operand(old, f)
        if new is not old and new != old:
            changes[name] = new
    return dataclasses.replace(ins, **changes) if changes else ins


def rebuild(kernel: Kernel, blocks: list[Block], f: Callable[[Value], object] | None = None,
            renamed_asserts: dict | None = None) -> Kernel:
    """A new Kernel with `blocks`; loop info operands go through `f`; invariant
    Asserts are re-pointed at their rewritten instructions."""
    renamed = dict(renamed_asserts or {})
    f = f or (lambda v: v)
    loops = []
    for lp in kernel.loops:
        rng = lp.range
        if rng is not None:
            rng = dataclasses.replace(rng, start=_map_operand(rng.start, f),
                                      stop=_map_operand(rng.stop, f),
                                      step=_map_operand(rng.step, f))
        invs = tuple(renamed.get(id(a), a) for a in lp.invariants)
        loops.append(dataclasses.replace(lp, range=rng, invariants=invs))
    return dataclasses.replace(kernel, blocks=tuple(blocks), loops=tuple(loops))


def resolver(mapping: Mapping[int, object]) -> Callable[[object], object]:
    """The function an operand goes through under `mapping` (value id ->
    replacement): chains of replacements followed to their end, each id's
    end computed once."""
    memo: dict[int, object] = {}

    def f(v):
        if not isinstance(v, Value) or v.id not in mapping:
            return v
        key = v.id
        end = memo.get(key)
        if end is None:
            seen = 0
            while isinstance(v, Value) and v.id in mapping and seen < 10_000:
                v = mapping[v.id]
                seen += 1
            end = memo[key] = v
        return end
    return f


def mentions(ins, mapping: Mapping[int, object]) -> bool:
    """Does `ins` (an instruction, phi or terminator) use a value id of `mapping`?"""
    for o in ins.operands():        # (a loop: a generator costs more on every instruction)
        if isinstance(o, Value) and o.id in mapping:
            return True
    return False


def replace_in_rounds(items: list, first, rule: Callable[[Any], object],
                      settled: Callable[[Any, Mapping[int, object]], bool]) -> dict[int, object]:
    """What sweeping `items` until nothing changes would replace: value id ->
    replacement, for each item whose `rule` gives one (None: keep it). Each
    round retries the items whose operands the previous rounds replaced (the
    positions `first` in the first round), with those operands replaced,
    except those `settled` says are done. Linear in the items plus one retry
    per replaced operand."""
    current = list(items)
    users: dict[int, list[int]] = {}        # value id -> positions in `current` reading it
    for pos, ins in enumerate(current):
        for o in ins.operands():
            if isinstance(o, Value):
                users.setdefault(o.id, []).append(pos)
    mapping: dict[int, object] = {}
    retry = set(first)
    while retry:
        resolve = resolver(mapping)
        found: dict[int, object] = {}
        for pos in sorted(retry):
            ins = current[pos]
            if mapping and mentions(ins, mapping):
                ins = current[pos] = rewrite_instr(ins, resolve)
            replacement = rule(ins)
            res = result_of(ins)
            if replacement is not None and res is not None:
                found[res.id] = replacement
        mapping.update(found)
        retry = set()
        for vid, replacement in found.items():
            readers = users.get(vid, ())
            retry.update(readers)
            if isinstance(replacement, Value):      # its readers now read the replacement
                users.setdefault(replacement.id, []).extend(readers)
        retry = {pos for pos in retry if not settled(current[pos], mapping)}
    return mapping


def substitute(kernel: Kernel, mapping: Mapping[int, object]) -> Kernel:
    """Replace every use of value id k by mapping[k] (chains resolved).
    Linear in the kernel: only the instructions that use a mapped id are
    rebuilt (the others, and blocks with none, are kept as they are)."""
    if not mapping:
        return kernel
    f = resolver(mapping)
    renamed = {}
    blocks = []
    for b in kernel.blocks:
        phis = tuple(rewrite_instr(p, f) if mentions(p, mapping) else p for p in b.phis)
        instrs = []
        for ins in b.instrs:
            new = rewrite_instr(ins, f) if mentions(ins, mapping) else ins
            if new is not ins and isinstance(ins, Assert):
                renamed[id(ins)] = new
            instrs.append(new)
        term = rewrite_instr(b.terminator, f) if mentions(b.terminator, mapping) else b.terminator
        if term is b.terminator and all(n is o for n, o in zip(instrs, b.instrs)) \
                and all(n is o for n, o in zip(phis, b.phis)):
            blocks.append(b)
        else:
            blocks.append(Block(b.label, phis, tuple(instrs), term))
    return rebuild(kernel, blocks, f, renamed)


def range_counters(kernel: Kernel) -> set[int]:
    return {lp.range.counter.id for lp in kernel.loops if lp.range is not None}


def _kernel_uses(kernel: Kernel):
    """Every used Value, once per use: instruction, phi and terminator
    operands, then the loops' range counters and bounds."""
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs, b.terminator):
            for o in ins.operands():
                if isinstance(o, Value):
                    yield o
    for lp in kernel.loops:
        if lp.range is not None:
            for o in (lp.range.counter, lp.range.start, lp.range.stop, lp.range.step):
                if isinstance(o, Value):
                    yield o


def used_value_ids(kernel: Kernel) -> set[int]:
    return {v.id for v in _kernel_uses(kernel)}


def use_counts(kernel: Kernel) -> dict[int, int]:
    """Value id -> how many times it is used (as `used_value_ids` counts uses)."""
    counts: dict[int, int] = {}
    for v in _kernel_uses(kernel):
        counts[v.id] = counts.get(v.id, 0) + 1
    return counts


__all__ = ["Pass", "rewrite_instr", "rebuild", "resolver", "mentions", "substitute", "range_counters",
           "used_value_ids", "use_counts", "LoopInfo", "Phi"]
