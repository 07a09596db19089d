"""verikern.backends (installed from the top-level backends/ folder)."""
