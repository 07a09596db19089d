"""verikern.proofs (installed from the top-level proofs/ folder).

`prove_kernel` decides every obligation of one MIR kernel (proofs/prover.py);
`prove_file` (proofs/driver.py) compiles a file, proves and replays.
"""
from .obligations import (  # noqa: F401
    Counterexample, KernelReport, KernelStatus, Obligation, ObligationKind, Status,
)
from .prover import prove_kernel  # noqa: F401


def __getattr__(name):
    if name == "prove_file":
        from .driver import prove_file
        return prove_file
    raise AttributeError(f"module 'verikern.proofs' has no attribute {name!r}")
