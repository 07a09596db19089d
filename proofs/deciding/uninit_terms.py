"""Witness terms of the `uninit` decider (proofs/deciding/uninit.py): the
basis a witness thread is an integer combination of, the XOR inverses of
permuted writes, and the constraints binding a candidate write's thread copy
to a witness.

Invariant: everything here builds terms and constraints only; a wrong
witness term is refuted by the decider's claim like any other (bindings are
constraints, never substitutions), so nothing here can make a query vacuous.
"""
from __future__ import annotations

import z3

from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.uninit_candidates import Candidate, mentions, real_iteration

#: Most XOR-inverse terms added to a read's witness basis (`xor_inverses`).
MAX_XOR_TERMS = 4


def wide(t: z3.BitVecRef, width: int) -> z3.BitVecRef:
    return z3.ZeroExt(width - t.size(), t) if t.size() < width else t


def basis(ctx: ProofContext, e: tuple, cands=()) -> list:
    """The terms a witness is an integer combination of: 1, A's thread
    index, block_dim, each index of the element read, then the XOR
    inverses of the candidates' permuted writes (`xor_inverses`; those of
    a prefix of the candidates are a prefix of these)."""
    width = e[0].size() if e else 64
    A = ctx.A
    return [z3.BitVecVal(1, width), wide(A.ident.thread_idx, width),
            wide(ctx.launch.block_dim, width), *e, *xor_inverses(ctx, cands, e)]


def peel(t: z3.ExprRef) -> z3.ExprRef:
    while z3.is_app_of(t, z3.Z3_OP_SIGN_EXT) or z3.is_app_of(t, z3.Z3_OP_ZERO_EXT):
        t = t.arg(0)
    return t


def xor_inverses(ctx: ProofContext, cands, e: tuple) -> list:
    """For a write whose index k is `a ^ b` (an XOR-permuted or swizzled
    store, `s[t ^ 5]`, `s[r, c ^ r]`): the term that undoes it on the element
    read, e_k ^ b, where b does not depend on the writer's thread (a mask)
    or is the write's index j (then e_k ^ e_j). Only witness terms: a wrong
    one is refuted by the claim like any other witness (at most MAX_XOR_TERMS,
    in candidate order)."""
    return [xor_term(spec, e) for spec in xor_specs(ctx, cands, len(e))]


def xor_term(spec: tuple, e) -> z3.BitVecRef:
    """The XOR inverse `spec` ((k, mask term) or (k, index j)) on element `e`
    (terms, or BitVec values of one width)."""
    k, other = spec
    width = e[k].size()
    return e[k] ^ (e[other] if isinstance(other, int) else wide_signed(other, width))


def xor_specs(ctx: ProofContext, cands, n: int) -> list:
    out: list = []
    seen: set = set()
    for cand in cands:
        ins = ctx.kernel.block(cand.site[0]).instrs[cand.site[1]]
        idx = [peel(t) for t in cand.enc.index_terms(ins)][:n]
        tid = cand.enc.ident.thread_idx
        for k, t in enumerate(idx):
            if not z3.is_app_of(t, z3.Z3_OP_BXOR) or t.num_args() != 2:
                continue
            for mask in (t.arg(0), t.arg(1)):
                other: z3.ExprRef | int | None = None
                if not mentions(mask, tid):
                    other = mask
                else:
                    other = next((j for j, o in enumerate(idx) if j != k and o.eq(mask)), None)
                if other is None:
                    continue
                key = (k, other if isinstance(other, int) else -1 - other.get_id())
                if key in seen or len(out) >= MAX_XOR_TERMS:
                    continue
                seen.add(key)
                out.append((k, other))
    return out


def witness(coeffs, basis) -> z3.BitVecRef:
    out = coeffs[0] * basis[0]
    for c, t in zip(coeffs[1:], basis[1:]):
        out = out + c * t
    return out


def covers(ctx: ProofContext, cand: Candidate, e: tuple) -> z3.BoolRef:
    ins = ctx.kernel.block(cand.site[0]).instrs[cand.site[1]]
    idx = cand.enc.index_terms(ins)
    return z3.And(cand.enc.reach.get(cand.site[0], z3.BoolVal(False)),
                  *[a == b for a, b in zip(idx, e)])


def bind(ctx: ProofContext, cand: Candidate, w: z3.BitVecRef) -> z3.BoolRef:
    """The copy bound to witness `w`: its thread (for a strided candidate,
    the thread whose iteration has counter value w, and that iteration),
    A's block, and the candidate's iteration and links."""
    enc, A = cand.enc, ctx.A
    if cand.stride is not None:
        thread, _real = real_iteration(cand.stride, w, ctx.launch.block_dim)
        counter = cand.stride.counter
        ext = z3.SignExt if cand.stride.signed else z3.ZeroExt
        who = z3.And(wide(enc.ident.thread_idx, thread.size()) == thread,
                     ext(thread.size() - counter.size(), counter) == wide_signed(w, thread.size()))
    else:
        who = wide(enc.ident.thread_idx, w.size()) == w
    return z3.And(who, enc.ident.block_idx == A.ident.block_idx,
                  *[var == val for var, val in cand.iteration], *cand.link)


def wide_signed(t: z3.BitVecRef, width: int) -> z3.BitVecRef:
    return z3.SignExt(width - t.size(), t) if t.size() < width else t


def valid(ctx: ProofContext, w: z3.BitVecRef, cand: Candidate | None = None) -> z3.BoolRef:
    """The witness names a real thread of the block (for a strided candidate:
    a real iteration of a thread of the block, `real_iteration`)."""
    if cand is not None and cand.stride is not None:
        return real_iteration(cand.stride, w, ctx.launch.block_dim)[1]
    return z3.And(w >= 0, w < wide(ctx.launch.block_dim, w.size()))
