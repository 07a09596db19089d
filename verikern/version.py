"""verikern's version: the one place it is written (pyproject.toml repeats it).

Invariant: this module imports nothing, so any layer (proofs, encoders,
backends, the app and the CLI) may read the version without importing the
package's lazy language surface.
"""
from __future__ import annotations

__version__ = "0.1.0"
