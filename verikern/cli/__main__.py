"""`python -m verikern.cli`: the `verikern` command."""
from verikern.cli import main

main(prog_name="verikern")
