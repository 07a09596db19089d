"""Random small kernels for the differential soundness test: generators of
kernels (global-array arithmetic, loops, atomics; shared memory, barriers,
barrier loops, block_until) and of launches, and the check that every
obligation the prover marks proved holds on simulator runs of admitted
launches (no runtime error at a proved site, no race in the trace between
the two sites of a proved race obligation). Written by a red-team review.
"""
from __future__ import annotations

import numpy as np

from verikern.backends.simulator import simulate
from verikern.errors import ContractError, KernelRuntimeError, LaunchError
from verikern.frontend import compile_source
from verikern.proofs.driver import prove_mir
from verikern.proofs.obligations import Status
from verikern.runtime import prepare_launch
from verikern.trace import find_races

def atom(r, names):
    c = r.random()
    if c < 0.45:
        return r.choice(names)
    if c < 0.7:
        return str(r.choice([0, 1, 2, 3, 5, 7, 8, 16, 31, 32, 33, 64]))
    return r.choice(["a.shape[0]", "b.shape[0]", "vk.block_dim()", "vk.thread_idx()"])


def expr(r, names, depth=2):
    if depth == 0 or r.random() < 0.3:
        return atom(r, names)
    op = r.choice(["+", "-", "*", "//", "%", "min", "max", "+", "-"])
    x, y = expr(r, names, depth - 1), expr(r, names, depth - 1)
    if op in ("min", "max"):
        return f"vk.{op}({x}, {y})"
    return f"({x} {op} {y})"


def cond(r, names, depth=1):
    c = f"{expr(r, names, 1)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {expr(r, names, 1)}"
    if depth and r.random() < 0.4:
        return f"({c}) {r.choice(['and', 'or'])} ({cond(r, names, depth - 1)})"
    return c


def requires(r):
    parts = [r.choice(["n >= 0", "n > 0", "n >= 1 and n <= 64", "n < 100"]),
             r.choice(["m > 0", "m >= 0 and m < 50", "m != 0", "m >= 2"])]
    if r.random() < 0.6:
        parts.append(r.choice(["a.shape[0] >= n", "a.shape[0] == n", "b.shape[0] >= m",
                               "a.shape[0] >= vk.launch_dim()", "b.shape[0] == a.shape[0]",
                               "a.shape[0] >= n * m", "n <= m"]))
    return "\n".join(f"    vk.requires({p})" for p in parts)


def body(r):
    names = ["i", "n", "m"]
    lines = ["    i = vk.tid()"]
    if r.random() < 0.5:
        lines.append(f"    j = {expr(r, names, 2)}")
        names.append("j")
    kind = r.random()
    if kind < 0.35:
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        a[{expr(r, names, 2)}] = b[{expr(r, names, 1)}]")
    elif kind < 0.55:
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        assert {cond(r, names, 0)}")
        lines.append(f"        a[{expr(r, names, 1)}] = 1")
    elif kind < 0.8:
        lines.append(f"    k = {expr(r, names, 1)}")
        lines.append(f"    while k < {expr(r, names, 1)}:")
        lines.append("        if k >= 0 and k < a.shape[0]:")
        lines.append("            vk.atomic_add(a, k, 1)")
        lines.append(f"        k += {r.choice(['1', '2', 'm', 'vk.block_dim()', 'n'])}")
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        b[{expr(r, names, 1)}] = k")
    else:
        lines.append(f"    for r in range({expr(r, names, 1)}):")
        lines.append(f"        if {cond(r, names + ['r'], 0)}:")
        lines.append(f"            a[{expr(r, names + ['r'], 1)}] += r")
    return "\n".join(lines)


def global_kernel_source(r):
    bd = r.choice(["", "(block_dim=32)", "(block_dim=7)"])
    return (f"import verikern as vk\n\n\n@vk.kernel{bd}\n"
            f"def k(a: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), "
            f"n: vk.int32, m: vk.int32):\n{requires(r)}\n{body(r)}\n")


def global_launches(r, kern, count=12):
    fixed = kern.block_dim
    for _ in range(count):
        n = r.choice([0, 1, 2, 3, 5, 8, 31, 32, 33, 64, 99, -1, r.randint(-5, 100)])
        m = r.choice([1, 2, 3, 7, 32, 49, 0, -1, r.randint(-3, 60)])
        dim = r.choice([1, 2, 7, 32, 33, 64, 65, r.randint(1, 100)])
        bd = fixed or r.choice([1, 7, 32, 64, 256])
        if fixed and r.random() < 0.8:
            dim = fixed * r.randint(1, 3)
        sa = r.choice([0, 1, n if n >= 0 else 0, max(n, 0) * max(m, 0) % 300, dim, r.randint(0, 120)])
        sb = r.choice([0, 1, sa, m if m >= 0 else 0, r.randint(0, 120)])
        yield dim, bd, n, m, sa, sb


def sidx(r, names):
    return r.choice(["t", "t + 1", "t - 1", "(t + 1) % BD", "BD - 1 - t", "t // 2", "t * 2",
                     "(t * 2) % BD", "0", "n", "t + n", "(t + m) % BD",
                     "t % m", "vk.min(t, n)"] + (["(t + r) % BD", "r", "t ^ r"] if "r" in names else []))


def tcond(r, names):
    return r.choice(["t < n", "t == 0", "t % 2 == 0", "t < BD - 1", "t > 0", "n > 3",
                     "m > t", "t >= 1 and t <= n", "t * 2 < BD", "True"]
                    + (["r < t", "t % (r + 1) == 0", "r == n - 1"] if "r" in names else []))


def ucond(r, names):
    return r.choice(["n > 2", "m == 1", "True", "n < m"] + (["r > 0", "r == n - 1", "r % 2 == 0"] if "r" in names else []))


def block(r, names, depth, ind):
    pad = "    " * ind
    out = []
    for _ in range(r.randint(1, 3)):
        c = r.random()
        if c < 0.3:
            out.append(f"{pad}if {tcond(r, names)}:")
            out.append(f"{pad}    s[{sidx(r, names)}] = {r.choice(['t', 'n', 'x', '1'])}")
        elif c < 0.45:
            out.append(f"{pad}s[{sidx(r, names)}] = t")
        elif c < 0.6:
            out.append(f"{pad}x = x + s[{sidx(r, names)}]")
        elif c < 0.75:
            out.append(f"{pad}vk.sync_threads()")
        elif c < 0.82:
            out.append(f"{pad}if {ucond(r, names)}:")
            out.append(f"{pad}    vk.sync_threads()")
        elif c < 0.88:
            out.append(f"{pad}vk.atomic_add(s, {sidx(r, names)}, 1)")
        elif c < 0.91:
            out.append(f"{pad}vk.block_until({r.choice(['s[0] >= 0', 'n > 0', 's[n] == s[n]', 'x >= 0'])})")
        elif c < 0.94 and "r" in names:
            out.append(f"{pad}if {r.choice(['r == n - 1', 'r > m', 't > r', 'r * 2 > n'])}:")
            out.append(f"{pad}    {r.choice(['break', 'continue'])}")
        elif depth > 0 and "r" not in names:
            out.append(f"{pad}for r in range({r.choice(['n', 'm', '2', 'n - 1', 'BD // 2', 't % 2 + n', 'vk.max(n, 1)'])}):")
            out += block(r, names + ["r"], depth - 1, ind + 1)
        else:
            out.append(f"{pad}if {tcond(r, names)}:")
            out.append(f"{pad}    x = x + s[{sidx(r, names)}]")
    return out


def shared_kernel_source(r):
    bd = r.choice([4, 8, 32])
    req = r.choice(["n >= 0 and n < BD", "n >= 1 and n <= 4", "n > 0 and n < BD - 1"])
    reqm = r.choice(["m >= 1 and m <= 3", "m > 0 and m < BD", "m == 1"])
    body = "\n".join(block(r, ["t"], 1, 1))
    return (f"import verikern as vk\n\nBD = {bd}\n\n\n@vk.kernel(block_dim=BD)\n"
            f"def k(a: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), "
            f"n: vk.int32, m: vk.int32):\n"
            f"    vk.requires({req})\n    vk.requires({reqm})\n"
            f"    s = vk.shared.array(shape=(BD,), dtype=vk.int32)\n"
            f"    t = vk.thread_idx()\n    i = vk.tid()\n    x = 0\n"
            f"{body}\n"
            f"    if i < a.shape[0]:\n        a[i] = x\n")


def shared_launches(r, kern, count=12):
    bd = kern.block_dim
    for _ in range(count):
        n = r.randint(0, bd)
        m = r.randint(0, bd)
        dim = bd * r.randint(1, 3)
        sa = r.choice([0, dim, r.randint(0, 3 * bd)])
        yield dim, bd, n, m, sa, 4


def check(src, r, tag, gen):
    mod = compile_source(src, f"fuzz_{tag}.py")
    if mod.errors or not mod.kernels or mod.kernels[0].mir is None:
        return "compile-error"
    kern = mod.kernels[0].mir
    rep = prove_mir(kern, file=f"fuzz_{tag}.py", timeout=5.0, replay=False)
    proved = [o for o in rep.obligations if o.status is Status.PROVED]
    if not proved:
        return "none-proved"
    proved_sites = {(o.kind.value, o.loc.line, o.loc.col) for o in proved}
    proved_races = {tuple(sorted([(o.loc.line, o.loc.col), (o.other_loc.line, o.other_loc.col)]))
                    for o in proved if o.kind.value == "race"}
    admitted = 0
    for dim, bd, n, m, sa, sb in gen(r, kern):
        a, b = np.zeros(sa, np.int32), np.zeros(sb, np.int32)
        try:
            k2, cfg, arrays, scalars = prepare_launch(kern, dim, [a, b, n, m], bd)
        except (ContractError, LaunchError):
            continue
        except KernelRuntimeError as e:     # a fault inside the requires
            key = (e.kind, e.loc.line, e.loc.col) if e.loc else None
            if key in proved_sites:
                return f"FALSE PROOF (contract eval) {key} dim={dim} bd={bd} n={n} m={m} sa={sa} sb={sb}: {e.message}"
            continue
        admitted += 1
        try:
            res = simulate(k2, cfg, arrays, scalars, trace=True, max_steps=200000)
        except KernelRuntimeError as e:
            key = (e.kind, e.loc.line, e.loc.col) if e.loc else None
            if key in proved_sites:
                return f"FALSE PROOF {key} dim={dim} bd={bd} n={n} m={m} sa={sa} sb={sb}: {e.message}"
            continue
        for race in find_races(res.document):
            pair = tuple(sorted([(race.line, race.col), (race.other_line, race.other_col)]))
            if pair in proved_races:
                return f"FALSE PROOF race {pair} dim={dim} bd={bd} n={n} m={m} sa={sa} sb={sb}: {race}"
    return f"ok ({len(proved)} proved, {admitted} launches)"
