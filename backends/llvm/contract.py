"""A kernel's launch contract as a host function: the C form of the
`requires` half of `vk.check_launch` (verikern.app.build links it into the
library it writes).

`add_contract_function(kernel, module)` adds

    i32 @vk_contract_<kernel>(i8* args, i64* out, i64* err)

(`args`: the C struct `vk_entry_<kernel>` reads, kernel_cpu.args_struct_type)

which evaluates, for block 0's thread 0 as the launch check
(verikern.backends.contracts.check_contracts) does, the instructions the entry block's `Requires` and
`RequiresArray` operands depend on, and writes two int64 words per contract
(in the kernel's order, `contracts(kernel)`): for a `Requires`, its
condition (0 or 1) and 0; for a `RequiresArray`, its `lo` and `hi` operands
widened to int64 (sign- or zero-extended by the array's dtype; 0 when
absent). It returns 0, or the ERR_* code of a check failing inside a
contract expression (a zero divisor), with the error status in `err` as
the kernel body writes it.

Invariant: it never reads array contents and never performs a memory access
of the kernel; the caller checks every `Requires` word and the contents of
every `RequiresArray` array, in order, before the kernel runs. A contract
whose value depends on anything but scalar parameters, shapes and launch
geometry raises LoweringError (MIR places contracts so that this never
happens; the prover assumes exactly these conditions).
"""
from __future__ import annotations

from llvmlite import ir

from verikern.mir.nodes import Kernel, Load, Requires, RequiresArray, Value, result_of

from .abi import AbiTarget, I8, I32, I64, ErrorSite, bind_slots, kernel_params
from .kernel_cpu import args_struct_type
from .body import Emitter, handler
from .ops import LoweringError

#: int64 words `vk_contract_*` writes per contract
WORDS_PER_CONTRACT = 2


def contracts(kernel: Kernel) -> list[Requires | RequiresArray]:
    """The kernel's contracts, in the order they are checked: those of the
    entry block before its first write or barrier (the MIR placement rule)."""
    out: list[Requires | RequiresArray] = []
    for ins in kernel.entry.instrs:
        if isinstance(ins, (Requires, RequiresArray)):
            out.append(ins)
    return out


class ContractTarget(AbiTarget):
    """Target hooks for the contract function: geometry from its arguments,
    thread 0 of block 0, no memory."""

    def __init__(self, kernel: Kernel, params, fields: list, out, err):
        self.kernel = kernel
        self.out, self.err = out, err
        bind_slots(self, params, fields)
        self.block_dim, self.grid_dim = fields[len(params):]

    def libm_name(self, name: str) -> str:
        return name

    def special(self, em, ins):
        if ins.kind in ("thread_idx", "block_idx"):
            return ir.Constant(I32, 0)
        if ins.kind == "block_dim":
            return self.block_dim
        if ins.kind == "grid_dim":
            return self.grid_dim
        if ins.kind == "launch_dim":
            return self.launch_dims[ins.dim]
        raise LoweringError(f"{ins.loc}: unknown special {ins.kind!r}")

    def shape(self, em, arr, dim):
        if arr.space == "shared":
            return ir.Constant(I32, arr.shape[dim])
        return self.shapes[(arr.name, dim)]

    def array_base(self, em, arr):
        raise LoweringError(f"kernel {self.kernel.name}: a contract reads array {arr.name}")

    def report_error(self, em, code, site, detail):
        b = em.b
        words = [ir.Constant(I64, code), b.zext(site, I64), ir.Constant(I64, 0),
                 ir.Constant(I64, 0)] + list(detail)
        for k, w in enumerate(words):
            b.store(w, b.gep(self.err, [ir.Constant(I32, k)]))
        b.ret(ir.Constant(I32, code))

    def barrier(self, em, ins, barrier_id):  # pragma: no cover - never in a contract slice
        raise LoweringError(f"{ins.loc}: a barrier in a contract")

    def ret(self, em, term):  # pragma: no cover - never in a contract slice
        raise LoweringError(f"{term.loc}: a return in a contract")


def _slice(kernel: Kernel) -> list[tuple[int, object]]:
    """(index, instruction) of the entry block's instructions the contracts
    depend on, in order, the contracts included."""
    instrs = list(kernel.entry.instrs)
    defined = {r.id: k for k, ins in enumerate(instrs) if (r := result_of(ins)) is not None}
    wanted: set[int] = set()
    todo = [k for k, ins in enumerate(instrs) if isinstance(ins, (Requires, RequiresArray))]
    while todo:
        k = todo.pop()
        if k in wanted:
            continue
        wanted.add(k)
        ins = instrs[k]
        if isinstance(ins, Load):
            raise LoweringError(f"{ins.loc}: kernel {kernel.name}: a contract depends on "
                                f"array contents; state it with vk.all_in_range and the others")
        for op in ins.operands():
            if isinstance(op, Value) and op.id in defined:
                todo.append(defined[op.id])
    return [(k, instrs[k]) for k in sorted(wanted)]


def add_contract_function(kernel: Kernel, module: ir.Module,
                          fast_math: bool = False) -> list[ErrorSite]:
    """Add `vk_contract_<kernel>` (module doc) to `module`; returns its
    check sites (indexed by the `site` word of its error status)."""
    params = kernel_params(kernel)
    i64p = ir.PointerType(I64)
    fty = ir.FunctionType(I32, [ir.PointerType(I8), i64p, i64p])
    func = ir.Function(module, fty, f"vk_contract_{kernel.name}")
    for arg, name in zip(func.args, ("args", "out", "err")):
        arg.name = name
    b = ir.IRBuilder(func.append_basic_block("entry"))
    st = args_struct_type(params)
    p = b.bitcast(func.args[0], ir.PointerType(st))
    fields = [b.load(b.gep(p, [ir.Constant(I32, 0), ir.Constant(I32, k)]))
              for k in range(len(st.elements))]
    target = ContractTarget(kernel, params, fields, func.args[1], func.args[2])
    em = Emitter(kernel, module, func, target, fast_math)
    em.b = b
    em.label = kernel.entry.label
    em.linear = set()            # no launch_size facts: nothing here is assumed
    for p in kernel.scalar_params:
        em.values[p.value.id] = em.from_storage(target.scalars[p.name],
                                                p.value.type)
    order = {id(c): j for j, c in enumerate(contracts(kernel))}
    for k, ins in _slice(kernel):
        em.index = k
        if isinstance(ins, Requires):
            j = order[id(ins)]
            word = b.zext(em.operand(ins.cond), I64)
            b.store(word, b.gep(target.out, [ir.Constant(I32, WORDS_PER_CONTRACT * j)]))
            b.store(ir.Constant(I64, 0),
                    b.gep(target.out, [ir.Constant(I32, WORDS_PER_CONTRACT * j + 1)]))
        elif isinstance(ins, RequiresArray):
            j = order[id(ins)]
            signed = ins.array.dtype.is_signed
            for w, op in enumerate((ins.lo, ins.hi)):
                word = ir.Constant(I64, 0) if op is None else em.as_i64(em.operand(op), signed)
                b.store(word, b.gep(target.out, [ir.Constant(I32, WORDS_PER_CONTRACT * j + w)]))
        else:
            handler(ins)(em, ins)
    b.ret(ir.Constant(I32, 0))
    return em.sites
