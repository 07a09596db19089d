"""verikern.proofs (installed from the top-level proofs/ folder), by role:

- `obligations`: the data model (obligations, counterexamples, verdicts);
- `analysis/`: MIR analyses that never touch a solver (uniformity, barrier intervals);
- `deciding/`: the z3 prover, its one solve strategy, budgets, invariants,
  peeled iterations, a second solver and the SMT-LIB export;
- `confirming/`: replay of counterexamples on the simulator and through C;
- `reporting/`: renderers (text, JSON, SARIF, HTML), scopes, fingerprints, gates;
- `pipeline`: one kernel's proof, decided then settled by replay.

`prove_kernel` decides every obligation of one MIR kernel
(proofs/deciding/prover.py); `prove_mir` (proofs/pipeline.py) also replays.
Compiling files is the application's job (verikern.app), above this package.
"""
from verikern.proofs.obligations import (  # noqa: F401
    Counterexample, KernelReport, KernelStatus, Obligation, ObligationKind, Status,
)


def __getattr__(name: str):
    """`prove_kernel` and `prove_mir`, imported on first use: importing the
    package (as the encoders do for the obligation model) must not import
    the prover, which imports the encoders."""
    if name == "prove_kernel":
        from verikern.proofs.deciding.prover import prove_kernel  # lazy: PEP 562, package stays light
        return prove_kernel
    if name == "prove_mir":
        from verikern.proofs.pipeline import prove_mir  # lazy: PEP 562, package stays light
        return prove_mir
    raise AttributeError(f"module 'verikern.proofs' has no attribute {name!r}")
