"""Stage 2 of the frontend: what each builtin is, its typing and its
desugaring into core calls (see ../README.md). Imports only `scan`."""
