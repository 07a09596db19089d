"""verikern.encoders (installed from the top-level encoders/ folder)."""
