"""Stage 1 of the frontend: reading a module (see ../README.md). Imports no
other stage."""
