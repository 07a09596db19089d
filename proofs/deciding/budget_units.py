"""The figures of the solver budgets (proofs.deciding.budget re-exports every one):
z3 resource units per check and per kernel, the floors, the kernel's total and what
each kind of Python work is charged to it, the compile budget, the seeds and the
wall-clock safety net.

Invariant: these are counts of work (z3 units, compile units, steps), never seconds,
except SAFETY_NET_S, the outer net whose checks end UNKNOWN saying so; each comment
says what the figure bounds and the measurement it was chosen by. The meters that
apply them, and their semantics, are budget.py's."""
from __future__ import annotations

#: One million z3 resource units (the unit of `--budget`).
MEGA = 1_000_000
#: Default work for one full check (the per-obligation budget), in z3 units.
DEFAULT_CHECK_RLIMIT = 10 * MEGA
#: A kernel's whole proof may spend this many full checks' worth of work;
#: past that, each check still gets `MIN_CHECK_RLIMIT` (then ends UNKNOWN
#: early) so that one kernel cannot stall a run.
KERNEL_CHECKS = 4
#: The kernel's total is at least this much, whatever the per-check budget.
MIN_KERNEL_RLIMIT = 20 * MEGA
#: The least work any check gets, however much the kernel has spent.
MIN_CHECK_RLIMIT = MEGA // 2
#: The whole kernel (see the module docstring) may spend this many per-check
#: budgets: 15 million z3 units at the default `--budget 10`, which the large
#: project kernels spend in well under 60 s on a loaded 2-core machine.
KERNEL_WORK_CHECKS = 1.5
#: The least work every obligation of a kernel gets (z3 units; see the module
#: docstring): half a million units decide a typical bounds or race obligation.
OBLIGATION_FLOOR = MEGA // 2
#: Once the kernel's own work is spent, obligations are tried on their floor only until
#: this many in a row end undecided on it; the rest are not tried (`prove_kernel`), each
#: ending UNKNOWN with the reason (budget_reasons.exhausted_reason's `floor_run`). Such a proof can no
#: longer end proved, and those floors found almost nothing: session 28, a spline kernel
#: of three instances spent 67 floors each, 33 million units of its then 90 million total,
#: deciding 2 of them.
FLOOR_RUN = 8
#: A kernel's total (`kernel_total`) is this many per-check budgets by default
#: (`--kernel-budget` sets it): 100 million units at the default `--budget 10`, compiling
#: the kernel counted in it (COMPILE_UNIT_WEIGHT). Chosen by measurement (README, sessions
#: 25 and 28): 90 until session 28, when FLOOR_RUN and the premise search's skipping of
#: instances whose own work ran out took the slowest project kernels from 60-115 CPU s to
#: 30-55 at 90 million. At 100 million 7 of the 24 sample kernels whose total ran out first
#: at 90 million are proved under their suggestion (9 at 120 million), and the slowest
#: kernels measured stay under 60 CPU s one a process (at 120 million the rho_q
#: double-backward kernels took about 80; session 29, every project kernel: at most 55.2
#: alone, one 63.7 while a second proof ran beside it). A kernel whose total does not run
#: out does the same work under any larger total (the same queries with the same limits).
KERNEL_TOTAL_CHECKS = 10
#: What a compile unit (verikern.mir.work) weighs in the kernel's total, in z3 units: the
#: compile work a unit stands for took about three times the CPU of a z3 unit of the proof
#: (session 25: 1.2-1.5 CPU us a compile unit on warpsphcore's largest kernels, 20 million
#: compile units in 24-30 CPU s; 0.4-0.5 us a unit of their proofs' totals, z3's and the
#: charges alike).
COMPILE_UNIT_WEIGHT = 3
#: The Python work around one solver query -- encoding the obligation's terms,
#: the proof context, reading the answer --, charged to the kernel's total in z3
#: units (`charge_query`): z3 counts only its own work, and a kernel of many
#: instances with cheap queries spent as much CPU outside z3 as inside it.
QUERY_UNITS = 10_000
#: The compiling of a pasted copy of the kernel's file inside its total (a suggested
#: contract's or typing premise's re-proof), charged like a query (`charge_compile`), by
#: what it compiled: COMPILE_UNITS for the copy, COMPILE_CHARACTER_UNITS for each character
#: of its text (parsing and scanning the file: the frontend's work grows with the file, not
#: with the kernels selected) and COMPILE_INSTRUCTION_UNITS for each MIR instruction of the
#: kernels it compiled (lowering). Measured (session 22, warm, load ~10): a pasted copy of
#: pme_multipole_kernels.py (355,133 characters, 150 instructions) 1.2-1.6 CPU s, of
#: lbfgs.py for `_lbfgs_cell_kappa_kernel` (131,213 characters, 132 instances of 1,429
#: instructions) 0.5 s; the flat 60,000 units per instance it replaces charged the latter
#: 10.9 million (3 M + 132 x 60 k) for half a CPU second.
COMPILE_UNITS = 250_000
COMPILE_CHARACTER_UNITS = 4
COMPILE_INSTRUCTION_UNITS = 160
#: A kernel's compile budget (verikern.mir.work: expressions typed, MIR instructions
#: built and walked by the verifier and passes; every instance and configuration of the
#: kernel) is this many per-check budgets (`compile_units`): 20 million units at the
#: default `--budget 10`, about 20-25 CPU s of counted compiling on this loaded 2-core
#: machine, to which reading the file and its project (not counted) adds 5-30 s (README,
#: session 23: at 30 million, wp_divergenceJVP.py still took 64.6 CPU s to compile; the
#: largest kernel that compiles whole today, computeSPHDensityJVP_Kernel, counts 20.3
#: million in its three configurations, computeCRKDensity_Kernel 17.2 million).
#: A kernel past it is `unknown` with what was counted; what compiling took is
#: charged to its total ("compiling the kernel", `KernelTotal.charge_compiling`), at
#: COMPILE_UNIT_WEIGHT z3 units a compile unit: the proof has what is left (since session
#: 25; before, it was on top of the total, and a kernel compiled at its budget spent 20
#: million compile units, 24-30 CPU s, besides its whole total).
COMPILE_CHECKS = 2
#: A kernel's compile budget is at least this much, whatever --budget (as MIN_KERNEL_RLIMIT
#: is for its proof): a small --budget starves proofs, not the compile that reads what to
#: prove (the corpus's largest kernel compiles on 3.2 million units).
MIN_COMPILE_UNITS = 10 * MEGA
#: The proof context's barrier-interval map (proofs.analysis.intervals: a walk of the
#: kernel's blocks from each barrier) may count this many steps per z3 unit of one check
#: (`interval_steps`): states visited plus instructions scanned, 2 million at the default
#: `--budget 10`, at least MIN_INTERVAL_STEPS. A map past it answers conservatively (every
#: pair of accesses possibly concurrent) and a race found on it is `unknown`.
INTERVAL_CHECKS = 0.2
MIN_INTERVAL_STEPS = 100_000
#: The Python work that grows with a query's size -- building and asserting each of
#: its formulas --, charged per formula past the first QUERY_FORMULAS on top of
#: QUERY_UNITS (`charge_query`): asserting one costs about 9 us, so QUERY_UNITS
#: already pays for a query of a thousand (the largest project kernels' queries hold
#: about a hundred); a larger one is charged for the rest.
FORMULA_UNITS = 10
QUERY_FORMULAS = 1_000
#: Evaluating one formula in a model (an earlier counterexample against a later
#: query, a lazy fact against a model, a refinement's known model), charged per
#: formula evaluated (`charge_evaluations`).
EVALUATION_UNITS = 20
#: Encoding one thread copy of a kernel into z3 terms (a proof context's
#: `ThreadEncoding`) and deriving the facts about them its queries assert (launch
#: geometry, product bounds: a walk of its terms), charged per instruction encoded
#: (`charge_encoding`): about 22 ms for a copy of 68 instructions with its facts
#: (a context's fixed part is paid for by its queries' QUERY_UNITS).
INSTRUCTION_UNITS = 100
#: The proof context's analyses of the kernel's CFG -- its loop shape and dominators,
#: block-uniformity (`varying_values` and the branches controlling each join), the loop
#: invariant candidates, the barrier-interval walk --, charged per step they count
#: (`note_analysis`: a block or instruction visited, a candidate built), drained into the
#: total at its next charge. Measured (session 24, an instance of wp_divergenceJVP.py of
#: 41,378 blocks, load 10): its analyses noted 4.0 million steps and took about 7 CPU s,
#: while z3 spent 1.2 million units a CPU second: two units a step.
ANALYSIS_STEP_UNITS = 2
#: The z3 term walks of the fact builders (launch geometry, monotone and bounded products,
#: widened products, remainder lemmas) and of the nonlinear abstraction, charged per child
#: term looked at (encoders.smt.terms.take_walked), drained into the total at its next
#: charge: a walk visits each term once per builder, and on kernels of tens of thousands of
#: instructions the walks of one query's facts took more CPU than z3 (session 24: that
#: instance's walks looked at 977,000 children in about 4.7 CPU s).
TERM_UNITS = 5
#: With `--suggest`, the share of a kernel's total (of more than one part) held back
#: for its suggested contracts' searches, example launches and re-proofs
#: (`reserved_total`): a quarter, so that the parts' proofs as written keep three
#: quarters; the uphill-check kernel's 11 instances each spent their share (9.1 M) on
#: the proof and a search (5.4 M), and the re-proof of the contract found got nothing.
SUGGESTION_RESERVE = 0.25
#: Fixed random seeds of every solver.
SEED = 0
#: Wall-clock safety net of one check (seconds): far beyond what any budget
#: above needs on a working machine; reaching it makes the check UNKNOWN.
SAFETY_NET_S = 300.0


__all__ = ["MEGA", "DEFAULT_CHECK_RLIMIT", "KERNEL_CHECKS", "MIN_KERNEL_RLIMIT",
           "MIN_CHECK_RLIMIT", "KERNEL_WORK_CHECKS", "OBLIGATION_FLOOR", "FLOOR_RUN",
           "KERNEL_TOTAL_CHECKS", "COMPILE_UNIT_WEIGHT", "QUERY_UNITS", "COMPILE_UNITS",
           "COMPILE_CHARACTER_UNITS", "COMPILE_INSTRUCTION_UNITS", "COMPILE_CHECKS",
           "MIN_COMPILE_UNITS", "INTERVAL_CHECKS", "MIN_INTERVAL_STEPS", "FORMULA_UNITS",
           "QUERY_FORMULAS", "EVALUATION_UNITS", "INSTRUCTION_UNITS", "ANALYSIS_STEP_UNITS",
           "TERM_UNITS", "SUGGESTION_RESERVE", "SEED", "SAFETY_NET_S"]
