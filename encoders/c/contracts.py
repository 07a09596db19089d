"""The array contracts of a kernel in its C encoding (`vk.requires` on array
contents: all_in_range, all_distinct, all_sorted).

Invariants: the replay build checks every contract over the whole array once
per launch (`requires_array`: an input breaking it is inadmissible, exit 3);
the CBMC build assumes a contract of a never-written global array at each
load of it, of the value read (`assume_contracts`): `lo <= v < hi`, and for
all_distinct / all_sorted, against each of the first CONTRACT_READS reads of
the array kept in the launch (`contract_log_fields`, `contract_helpers`).
Keeping fewer reads than the array holds constrains less than the contract
does: an over-approximation, never an under- (docs/C_ENCODER.md, "Array
contracts under CBMC"). Functions take the kernel's StepEmitter (`e`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .ops import CEncodeError, c_string, ctype

if TYPE_CHECKING:
    from .emitter import StepEmitter


#: Reads of one array a CBMC harness keeps for all_distinct / all_sorted: each
#: later read is assumed to respect the contract against every kept one.
CONTRACT_READS = 8


def contract_log_fields(e: "StepEmitter") -> list[str]:
    """Fields of vk_launch: the kept reads of each all_distinct / all_sorted array."""
    out = []
    for contracts in e.contracts.values():
        for ins in contracts:
            if ins.kind in ("all_distinct", "all_sorted"):
                n = site_number_of(e, ins)
                out.append(f"    uint64_t c{n}_flat[{CONTRACT_READS}]; "
                           f"{ctype(ins.array.dtype)} c{n}_val[{CONTRACT_READS}]; int32_t c{n}_n;")
    return out


def contract_helpers(e: "StepEmitter") -> str:
    """CBMC: one function per all_distinct / all_sorted contract assuming it
    between a new read (flat index f, value v) and every kept read, then
    keeping the read (the first CONTRACT_READS of them; later reads are
    constrained by those, which over-approximates, never under-)."""
    out = ["#ifndef VERIKERN_REPLAY"]
    for contracts in e.contracts.values():
        for ins in contracts:
            if ins.kind not in ("all_distinct", "all_sorted"):
                continue
            n = site_number_of(e, ins)
            t = ctype(ins.array.dtype)
            out.append(f"static inline void vk_contract{n}(vk_launch *L, uint64_t f, {t} v) {{")
            for j in range(CONTRACT_READS):
                kept_f, kept_v = f"L->c{n}_flat[{j}]", f"L->c{n}_val[{j}]"
                if ins.kind == "all_distinct":
                    rel = f"({kept_f} == f) == ({kept_v} == v)"
                else:
                    rel = (f"({kept_f} < f ? {kept_v} <= v : {kept_f} > f ? {kept_v} >= v "
                           f": {kept_v} == v)")
                out.append(f"    if (L->c{n}_n > {j}) __CPROVER_assume({rel});")
            out.append(f"    if (L->c{n}_n < {CONTRACT_READS}) {{ L->c{n}_flat[L->c{n}_n] = f; "
                       f"L->c{n}_val[L->c{n}_n] = v; L->c{n}_n++; }}")
            out.append("}")
    out.append("#endif")
    return "\n".join(out) + "\n" if len(out) > 2 else ""


def assume_contracts(e: "StepEmitter", ins, value: str) -> None:
    """CBMC: the array contracts of a never-written array, assumed of the
    value a load just read (the `__CPROVER_forall` of a whole array is not
    enforced by CBMC 6 over memory of symbolic size; docs/C_ENCODER.md)."""
    if ins.array.space != "global" or not e.contracts.get(ins.array.name):
        return
    e.emit("#ifndef VERIKERN_REPLAY", 0)
    for c in e.contracts[ins.array.name]:
        if c.kind == "all_in_range":
            e.emit(f"__CPROVER_assume(({e.operand(c.lo)}) <= {value} && {value} < "
                   f"({e.operand(c.hi)}));", 2)
        else:
            e.emit(f"vk_contract{site_number_of(e, c)}(L, T->flat, {value});", 2)
    e.emit("#endif", 0)


def requires_array(e, site, ins):
    """Replay: the contract checked over the whole array, once per launch
    (bit `site_number` of vk_launch.contracts_checked); CBMC: nothing here
    (assume_contracts assumes it at each load)."""
    arr = ins.array
    ptr = e.pointer(arr)
    count = " * ".join(e.dims_of(arr))
    msg = c_string(f"requires {e.file}:{ins.loc.line}:{ins.loc.col}")
    n = site_number(e, site)
    if ins.kind == "all_in_range":
        lo, hi = e.operand(ins.lo), e.operand(ins.hi)
        check = (f"for (uint64_t i = 0; i < {count}; i++) "
                 f"VK_ASSUME(({lo}) <= {ptr}[i] && {ptr}[i] < ({hi}), {msg});")
    elif ins.kind == "all_distinct":
        check = (f"VK_ASSUME(vk_all_distinct({ptr}, sizeof({ptr}[0]), {count}, "
                 f"{'1' if arr.dtype.is_signed else '0'}), {msg});")
    elif ins.kind == "all_sorted":
        check = (f"for (uint64_t i = 1; i < {count}; i++) "
                 f"VK_ASSUME({ptr}[i - 1] <= {ptr}[i], {msg});")
    else:
        raise CEncodeError(f"{ins.loc}: array contract {ins.kind!r} is unknown")
    e.emit(f"if (!(L->contracts_checked & (1ull << {n}))) {{")
    e.emit("#ifdef VERIKERN_REPLAY", 0)
    e.emit(check, 2)
    e.emit("#endif", 0)
    e.emit(f"L->contracts_checked |= (1ull << {n});", 2)
    e.emit("}")


def site_number_of(e: "StepEmitter", ins) -> int:
    """site_number of a RequiresArray instruction."""
    return next(site_number(e, (b.label, i)) for b in e.k.blocks
                for i, x in enumerate(b.instrs) if x is ins)


def site_number(e: "StepEmitter", site) -> int:
    """The number of an array contract (bit of vk_launch.contracts_checked)."""
    sites = [(b.label, i) for b in e.k.blocks for i, ins in enumerate(b.instrs)
             if ins.OPCODE == "requires_array"]
    n = sites.index(site)
    if n >= 64:
        raise CEncodeError(f"{e.file}: more than 64 array contracts")
    return n


