"""verikern.proofs (installed from the top-level proofs/ folder)."""
