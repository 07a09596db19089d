"""Random small kernels and launches for the differential soundness test
(`differential_check.check` proves a kernel, then runs it on the simulator).

Families, each `source(r) -> kernel text` and `launches(r, kern) -> (dims,
block_dim, inputs)` tuples:

- `global`: global-array arithmetic with loads whose values steer indices,
  conditions and divisors, asserts, loops with `vk.invariant` hints, atomics;
- `shared`: shared memory, barriers (also in uniform and thread-dependent
  branches), barrier loops, break/continue and block_until;
- `grid`: 2-D and 3-D launches over 2-D / 3-D arrays.

Array contents are never all zero: each array gets one of CONTENTS (random
values, a ramp, a descending ramp, a non-zero constant). Every kernel ends
with a guarded write, so most kernels have a proved obligation that a
completed launch checks. Originally written by a red-team review.
"""
from __future__ import annotations

import numpy as np

CONTENTS = ("random", "ramp", "descending", "constant")


def contents(r, n: int, shape=None) -> np.ndarray:
    """An int32 array of `n` elements (reshaped to `shape`) with varied contents."""
    kind = r.choice(CONTENTS)
    if kind == "random":
        flat = [r.randint(-4, 40) for _ in range(n)]
    elif kind == "ramp":
        flat = list(range(n))
    elif kind == "descending":
        flat = list(range(n - 1, -1, -1))
    else:
        flat = [r.choice([1, 2, 3, 7, -1])] * n
    arr = np.array(flat, dtype=np.int32)
    return arr.reshape(shape) if shape is not None else arr


# ------------------------------------------------------------------ expressions
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


# ------------------------------------------------------------------ global family
def _invariant_loop(r, names):
    """A counting loop with an invariant hint (true or not, provable or not)."""
    start = r.choice(["0", "1", "i % 4", "m"])
    step = r.choice(["1", "2", "m"])
    bound = r.choice(["n", "m + 3", "8", "a.shape[0]"])
    inv = r.choice([f"w >= {start}", "w >= 0", f"w <= {bound}", f"w < {bound}",
                    f"w >= 0 and w < {bound}", f"(w - {start}) % {step} == 0", "w >= 1"])
    body = r.choice(["        if w < a.shape[0]:\n            vk.atomic_add(a, w, 1)",
                     f"        v = v + w // {r.choice(['m', 'step', '2', 'v + 1'])}".replace("step", step),
                     "        if w >= 0 and w < b.shape[0]:\n            v = v + b[w]"])
    return (f"    w = {start}\n    while w < {bound}:\n        vk.invariant({inv})\n"
            f"{body}\n        w += {step}")


def body(r):
    names = ["i", "n", "m", "v"]
    lines = ["    i = vk.tid()", "    v = 0",
             f"    if i < b.shape[0]:\n        v = b[{r.choice(['i', 'b.shape[0] - 1 - i', 'i // 2'])}]"]
    if r.random() < 0.5:
        lines.append(f"    j = {expr(r, names, 2)}")
        names.append("j")
    kind = r.random()
    if kind < 0.25:
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        a[{expr(r, names, 2)}] = b[{expr(r, names, 1)}]")
    elif kind < 0.45:
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        assert {cond(r, names, 0)}")
        lines.append(f"        a[{expr(r, names, 1)}] = 1")
    elif kind < 0.6:
        lines.append(f"    k = {expr(r, names, 1)}")
        lines.append(f"    while k < {expr(r, names, 1)}:")
        lines.append("        if k >= 0 and k < a.shape[0]:")
        lines.append("            vk.atomic_add(a, k, 1)")
        lines.append(f"        k += {r.choice(['1', '2', 'm', 'vk.block_dim()', 'n'])}")
        lines.append(f"    if {cond(r, names)}:")
        lines.append(f"        b[{expr(r, names, 1)}] = k")
    elif kind < 0.85:
        lines.append(_invariant_loop(r, names))
    else:
        lines.append(f"    for r in range({expr(r, names, 1)}):")
        lines.append(f"        if {cond(r, names + ['r'], 0)}:")
        lines.append(f"            a[{expr(r, names + ['r'], 1)}] += r")
    if r.random() < 0.5:
        lines.append(f"    assert {r.choice(['v >= -4', 'v < 40', 'v != 3', 'i >= 0', 'v * 2 >= v'])}")
    lines.append(f"    if i < a.shape[0]:\n        a[i] = {r.choice(['v', 'i', f'v // {atom(r, names)}', 'v % m'])}")
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
        yield (dim,), bd, [contents(r, sa), contents(r, sb), n, m]


# ------------------------------------------------------------------ shared family
def sidx(r, names):
    return r.choice(["t", "t + 1", "t - 1", "(t + 1) % BD", "BD - 1 - t", "t // 2", "t * 2",
                     "(t * 2) % BD", "0", "n", "t + n", "(t + m) % BD",
                     "t % m", "vk.min(t, n)"] + (["(t + r) % BD", "r", "t ^ r"] if "r" in names else []))


def tcond(r, names):
    return r.choice(["t < n", "t == 0", "t % 2 == 0", "t < BD - 1", "t > 0", "n > 3",
                     "m > t", "t >= 1 and t <= n", "t * 2 < BD", "True", "t < BD", "x >= 0"]
                    + (["r < t", "t % (r + 1) == 0", "r == n - 1"] if "r" in names else []))


def ucond(r, names):
    with_r = ["r > 0", "r == n - 1", "r % 2 == 0"] if "r" in names else []
    return r.choice(["n > 2", "m == 1", "True", "n < m"] + with_r)


def block(r, names, depth, ind):
    pad = "    " * ind
    out = []
    for _ in range(r.randint(1, 3)):
        c = r.random()
        if c < 0.25:
            out.append(f"{pad}if {tcond(r, names)}:")
            out.append(f"{pad}    s[{sidx(r, names)}] = {r.choice(['t', 'n', 'x', '1'])}")
        elif c < 0.38:
            out.append(f"{pad}s[{sidx(r, names)}] = t")
        elif c < 0.5:
            out.append(f"{pad}x = x + s[{sidx(r, names)}] // {r.choice(['m', 'n', '2', 'x + 1'])}")
        elif c < 0.65:
            out.append(f"{pad}vk.sync_threads()")
        elif c < 0.72:
            out.append(f"{pad}if {ucond(r, names)}:")
            out.append(f"{pad}    vk.sync_threads()")
        elif c < 0.78:
            out.append(f"{pad}if {tcond(r, names)}:")
            out.append(f"{pad}    vk.sync_threads()")
        elif c < 0.84:
            out.append(f"{pad}vk.atomic_add(s, {sidx(r, names)}, 1)")
        elif c < 0.87:
            out.append(f"{pad}vk.block_until({r.choice(['s[0] >= 0', 'n > 0', 's[n] == s[n]', 'x >= 0'])})")
        elif c < 0.9 and "r" in names:
            out.append(f"{pad}if {r.choice(['r == n - 1', 'r > m', 't > r', 'r * 2 > n'])}:")
            out.append(f"{pad}    {r.choice(['break', 'continue'])}")
        elif depth > 0 and "r" not in names:
            stop = r.choice(['n', 'm', '2', 'n - 1', 'BD // 2', 't % 2 + n', 'vk.max(n, 1)'])
            out.append(f"{pad}for r in range({stop}):")
            if r.random() < 0.4:
                out.append(f"{pad}    vk.invariant({r.choice(['r >= 0', 'r < n', 'r < BD', 'r >= 1'])})")
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
            # shared memory starts uninitialised: every element is written
            # before the random body reads any (docs/LANGUAGE.md section 5 (6))
            f"    s[t] = 0\n    vk.sync_threads()\n"
            f"    if i < b.shape[0]:\n        x = b[i]\n"
            f"{body}\n"
            f"    if i < a.shape[0]:\n        a[i] = x\n")


def shared_launches(r, kern, count=12):
    bd = kern.block_dim
    for _ in range(count):
        n = r.randint(0, bd)
        m = r.randint(0, bd)
        dim = bd * r.randint(1, 3)
        sa = r.choice([0, dim, r.randint(0, 3 * bd)])
        sb = r.choice([4, dim, r.randint(0, 3 * bd)])
        yield (dim,), bd, [contents(r, sa), contents(r, sb), n, m]


# ------------------------------------------------------------------ grid family
def grid_kernel_source(r):
    nd = r.choice([2, 3])
    ids = ["i", "j", "l"][:nd]
    names = ids + ["n", "m", "v"]
    shape_guard = " and ".join(f"{x} < a.shape[{k}]" for k, x in enumerate(ids))
    idx = ", ".join(r.choice([x, f"{x} + 1", f"{x} - 1", f"{x} // 2", "n", f"{x} % m"]) for x in ids)
    val = r.choice(["v", "i + j", "v // m", "n % (v + 1)", "1"])
    lines = [f"    {', '.join(ids)} = vk.tid()", "    v = 0",
             f"    if {ids[-1]} < b.shape[0]:\n        v = b[{ids[-1]}]"]
    c = r.random()
    if c < 0.4:
        lines.append(f"    if {cond(r, names, 0)}:\n        a[{idx}] = {val}")
    elif c < 0.7:
        lines.append(f"    if {shape_guard}:\n        assert {cond(r, names, 0)}\n        a[{idx}] = {val}")
    else:
        lines.append(f"    for q in range({r.choice(['n', 'm', '3'])}):\n"
                     f"        vk.invariant({r.choice(['q >= 0', 'q < n', 'q < 3', 'q >= 1'])})\n"
                     f"        if {shape_guard}:\n            a[{', '.join(ids)}] += q")
    lines.append(f"    if {shape_guard}:\n        a[{', '.join(ids)}] = {r.choice(['v', val, 'j'])}")
    return (f"import verikern as vk\n\n\n@vk.kernel\n"
            f"def k(a: vk.array(dtype=vk.int32, ndim={nd}), b: vk.array(dtype=vk.int32), "
            f"n: vk.int32, m: vk.int32):\n"
            f"    vk.requires(n >= 0 and n < 8)\n    vk.requires(m >= 1)\n"
            + "\n".join(lines) + "\n")


def grid_launches(r, kern, count=10):
    nd = kern.launch_ndim
    for _ in range(count):
        dims = tuple(r.choice([1, 2, 3, 5, 8]) for _ in range(nd))
        shape = tuple(max(0, d + r.choice([-1, 0, 0, 1, 2])) for d in dims)
        sb = r.choice([0, 3, dims[-1], r.randint(0, 10)])
        n, m = r.randint(-1, 8), r.choice([0, 1, 2, 3, 7])
        yield dims, r.choice([1, 4, 32, 64]), [contents(r, int(np.prod(shape)), shape),
                                               contents(r, sb), n, m]


FAMILIES = {
    "global": (global_kernel_source, global_launches),
    "shared": (shared_kernel_source, shared_launches),
    "grid": (grid_kernel_source, grid_launches),
}
