"""A second opinion: every z3 answer a proof relies on, re-decided by another
solver from its SMT-LIB 2 text.

Invariant: with the cross-check solver `cvc5` (or `bitwuzla`) in the run's
solver settings (`verikern prove --cross-check NAME`, ProofOptions.cross_check,
proofs.deciding.session.SolverSettings), every query that z3 answers `sat`
or `unsat` is written as standard SMT-LIB 2 (QF_BV), decided again by that
solver under a deterministic resource limit, and recorded on the kernel's
SolverSession as a `CrossCheck`. A disagreement is never resolved in z3's favour: the prover
reports every obligation of that kernel that the disagreeing query could
support as `unknown`, and the run fails (`apply_cross_checks`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from verikern.proofs.obligations import Obligation, Status

#: Resource limit of the second solver per query (its own units; deterministic).
CROSS_RLIMIT = 20_000_000


@dataclass(frozen=True)
class CrossCheck:
    """One query decided twice: its name, z3's answer and the other solver's
    ("sat", "unsat" or "unknown" when its budget ran out)."""

    query: str
    solver: str
    z3_answer: str
    other_answer: str

    @property
    def agreed(self) -> bool:
        return self.other_answer == self.z3_answer

    @property
    def disagreed(self) -> bool:
        return self.other_answer in ("sat", "unsat") and self.other_answer != self.z3_answer


def _cvc5(text: str) -> str:
    import cvc5  # lazy: optional dependency

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("rlimit-per", str(CROSS_RLIMIT))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "verikern-query")
    symbols = parser.getSymbolManager()
    answer = "unknown"
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out = command.invoke(solver, symbols)
        if out and out.strip() in ("sat", "unsat", "unknown"):
            answer = out.strip()
    return answer


def _bitwuzla(text: str) -> str:
    import bitwuzla  # lazy: optional dependency

    tm = bitwuzla.TermManager()
    options = bitwuzla.Options()
    options.set(bitwuzla.Option.TIME_LIMIT_PER, 0)
    parser = bitwuzla.Parser(tm, options)
    parser.parse(text, True, False)
    result = parser.bitwuzla().check_sat()
    return {bitwuzla.Result.SAT: "sat", bitwuzla.Result.UNSAT: "unsat"}.get(result, "unknown")


SOLVERS: dict[str, tuple[str, Callable[[str], str]]] = {
    "cvc5": ("cvc5", _cvc5),
    "bitwuzla": ("bitwuzla", _bitwuzla),
}


def unavailable(name: str) -> str | None:
    """Why solver `name` cannot cross-check here (None when it can)."""
    if name not in SOLVERS:
        return f"unknown solver {name!r}: choose one of {', '.join(sorted(SOLVERS))}"
    module = SOLVERS[name][0]
    try:
        __import__(module)
    except ImportError:
        return f"{name} is not installed: pip install {module}"
    return None


def recheck(name: str, query: str, smtlib: str, z3_answer: str) -> CrossCheck:
    """`smtlib` decided by solver `name` (a solver error counts as unknown)."""
    try:
        other = SOLVERS[name][1](smtlib)
    except Exception as err:  # a crash of the second solver is no answer, never agreement
        other = f"unknown ({type(err).__name__})"
    return CrossCheck(query, name, z3_answer, other)


def version(name: str) -> str | None:
    try:
        from importlib.metadata import version as dist_version  # lazy: slow to import, only to name versions
        return dist_version(SOLVERS[name][0])
    except Exception:
        return None


__all__ = ["CrossCheck", "SOLVERS", "recheck", "unavailable", "version"]


def apply_cross_checks(ob: Obligation, records: list) -> Obligation:
    """`ob` with the second opinions on the queries it rests on: a verdict
    some second solver contradicts is UNKNOWN (never z3's word alone); one
    whose every query was re-decided alike names the solvers that agreed."""
    if not records or ob.status is Status.UNKNOWN:
        return ob
    against = [r for r in records if r.disagreed]
    if against:
        names = tuple(r.query for r in against)
        reason = (f"solvers disagree: z3 answered {against[0].z3_answer} but "
                  f"{against[0].solver} answered {against[0].other_answer} on query "
                  f"{against[0].query} ({len(against)} disagreement(s)); the verdict is "
                  f"not trusted")
        return replace(ob, status=Status.UNKNOWN, reason=reason, counterexample=None,
                       message=f"{ob.message} [{reason}]", disagreements=names)
    if all(r.agreed for r in records):
        return replace(ob, cross_checked=tuple(dict.fromkeys(r.solver for r in records)))
    return ob
