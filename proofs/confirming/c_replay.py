"""Compile a kernel's C encoding in replay mode and run it on counterexamples.

A confirmation independent of the simulator: the program is the C text of
`emit_c`, compiled with the system C compiler (`$CC`, else gcc, else cc,
else clang) and `verikern_harness.h`, run on the counterexample JSON.

Invariants: `CReplay.run` never raises for a kernel failure; it returns a
`CRun` whose `status` is "failed" (with the failing obligation ids, in the
order printed), "ok", "inadmissible" (the input breaks a requires or a
hardware limit), "error" (bad input, no memory, a crash, a timeout).  A
counterexample is confirmed only when the obligation's id is among the ids
the run failed with.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from verikern.encoders.c import HEADER_DIR, emit_c
from verikern.proofs.obligations import Counterexample
from verikern.mir.nodes import ArrayRef
from verikern.proofs.confirming.replay_launch import concrete_launch

CFLAGS = ("-std=c11", "-Wall", "-Wextra", "-Werror", "-O1")


class CCompilerMissing(RuntimeError):
    """No C compiler on PATH."""


def find_compiler() -> str:
    """$CC, else gcc, cc or clang from PATH; raises CCompilerMissing."""
    for name in (os.environ.get("CC"), "gcc", "cc", "clang"):
        path = shutil.which(name) if name else None
        if path:
            return path
    raise CCompilerMissing("no C compiler found (set CC or install gcc: apt-get install gcc)")


def compile_c(source: Path, exe: Path, compiler: str | None = None, *,
              replay: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """Compile one C file (replay mode unless replay=False: then -c only);
    returns the completed process (check .returncode / .stderr)."""
    cc = compiler or find_compiler()
    cmd = [cc, *CFLAGS, f"-I{HEADER_DIR}"]
    if replay:
        cmd += ["-DVERIKERN_REPLAY", str(source), "-o", str(exe), "-lm"]
    else:
        cmd += ["-c", str(source), "-o", str(exe)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@dataclass(frozen=True)
class CRun:
    """The outcome of one run of a replay program (see the module docstring)."""

    status: str
    failed_ids: tuple[str, ...] = ()
    output: str = ""

    def confirms(self, obligation_id: str) -> bool:
        return self.status == "failed" and obligation_id in self.failed_ids

    def describe(self, obligation_id: str | None = None) -> str:
        if self.status == "failed":
            first = "; ".join(line.split(" ", 1)[1] for line in self.output.splitlines()
                              if line.startswith("VERIKERN-FAIL "))
            if obligation_id is None:
                return f"the C program failed ({first})"
            if obligation_id in self.failed_ids:
                return f"the C program failed the same obligation ({first})"
            return f"the C program failed another obligation first ({first})"
        if self.status == "ok":
            return "the C program ran the launch without any failed check"
        if self.status == "inadmissible":
            return "the launch breaks a requires or a hardware limit: " + self.output.strip()
        return "the C program could not run the launch: " + self.output.strip()[-300:]


def parse_output(returncode: int, stdout: str) -> CRun:
    ids = tuple(line.split()[1] for line in stdout.splitlines()
                if line.startswith("VERIKERN-FAIL ") and len(line.split()) > 1)
    if returncode == 1 and ids:
        return CRun("failed", ids, stdout)
    if returncode == 0 and "VERIKERN-OK" in stdout:
        return CRun("ok", (), stdout)
    if returncode == 3:
        return CRun("inadmissible", (), stdout)
    return CRun("error", (), stdout or f"exit status {returncode}")


#: Arrays with more elements than this keep the counterexample's sparse
#: contents (the completion below would write every element into the JSON).
MAX_COMPLETED_ELEMENTS = 1 << 18


def counterexample_from_json(d: dict):
    """A proofs.obligations.Counterexample from its `to_json()` form."""
    return Counterexample(
        dims=tuple(int(x) for x in d["dims"]), block_dim=int(d["block_dim"]),
        threads=tuple((int(t["block"]), int(t["thread"])) for t in d.get("threads", [])),
        scalars=dict(d.get("scalars", {})),
        shapes={k: tuple(int(x) for x in v) for k, v in d.get("shapes", {}).items()},
        arrays={k: {int(i): v for i, v in m.items()} for k, m in d.get("arrays", {}).items()},
        facts=dict(d.get("facts", {})), abstracted=bool(d.get("abstracted", False)))


def completed_counterexample(kernel, d: dict) -> dict:
    """The counterexample with every array's contents written out as the
    prover's replay builds them (proofs.confirming.replay_launch.concrete_launch: the
    recorded elements, the `fill` a replay used -- facts["fill"] --, values
    meeting the array contracts in the free elements, zero elsewhere), as
    {component-flat index: value} maps of the non-zero elements.  This is
    input construction only; nothing runs on the simulator.  Arrays over
    MAX_COMPLETED_ELEMENTS elements, or a counterexample the construction
    refuses, keep the recorded contents."""
    try:
        cex = counterexample_from_json(d)
        fill = d.get("facts", {}).get("fill")
        if isinstance(fill, dict):
            fill = {k: (float("nan") if v == "nan" else v) for k, v in fill.items()}
        else:
            fill = None
        launch = concrete_launch(kernel, cex, fill)
    except (ValueError, KeyError, TypeError, OverflowError):
        return d
    arrays = dict(d.get("arrays", {}))
    for p, value in zip(kernel.params, launch.inputs):
        if not isinstance(p, ArrayRef) or value is None:
            continue
        flat = value.reshape(-1)
        if flat.size > MAX_COMPLETED_ELEMENTS:
            continue
        items = {}
        for i in (flat != 0).nonzero()[0].tolist():     # NaN != 0 too
            v = flat[i].item()
            items[str(i)] = int(v) if isinstance(v, bool) else v
        arrays[p.name] = items
    return {**d, "arrays": arrays}


class CReplay:
    """One kernel's replay program, compiled once in a temporary folder."""

    def __init__(self, kernel, *, compiler: str | None = None, workdir: str | None = None):
        self.kernel = kernel
        self._tmp = tempfile.TemporaryDirectory(prefix="verikern-c-", dir=workdir)
        d = Path(self._tmp.name)
        self.source = d / "kernel.c"
        self.exe = d / "kernel"
        self.source.write_text(emit_c(kernel), encoding="utf-8")
        proc = compile_c(self.source, self.exe, compiler)
        if proc.returncode != 0:
            raise RuntimeError(f"the C encoding of {kernel.name} does not compile:\n"
                               + proc.stderr[-2000:])
        self._n = 0

    def run(self, counterexample: dict, timeout: float = 60, complete: bool = True) -> CRun:
        """Run the launch of `counterexample` (Counterexample.to_json()), its
        contents completed as the prover's replay builds them (`complete`)."""
        if complete:
            counterexample = completed_counterexample(self.kernel, counterexample)
        self._n += 1
        path = Path(self._tmp.name) / f"ce{self._n}.json"
        path.write_text(json.dumps(counterexample), encoding="utf-8")
        try:
            proc = subprocess.run([str(self.exe), str(path)], capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return CRun("error", (), f"timed out after {timeout} s")
        return parse_output(proc.returncode, proc.stdout + proc.stderr)

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
