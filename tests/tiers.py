"""Test tiers: which tests are `slow` (see README.md, "Developer notes").

`pytest` runs everything (CI, `.ci/run`). `pytest -m "not slow"` is the inner
loop of development: it stays a fraction of the default run and still covers
every layer (frontend, MIR, simulator, native, PTX, prover, replay, CLI). It does
not finish in the 60 s once asked of it: measured with `-n 2`, 300-360 user CPU s
(session 25, `CI=true`: 296.8 user + 14.3 sys CPU s, 238 s wall on 2 cores at load
4.5-6; session 26, no CI: 357.0 user + 14.0 sys, 345 s wall at load 2-2.8), where
the default run takes 830-1050.

The slow marker is added at collection time (tests/conftest.py calls
`mark_slow`) from the tables below, so that one place says what the fast
tier leaves out:

- SLOW_FILES: every test of the file is slow.
- SLOW_TESTS: every case of these test functions is slow.
- CORPUS_WIDE: test functions parametrized over the corpus (tests/corpus) or
  the examples; only the cases of FAST_CORPUS / FAST_EXAMPLES stay fast, so
  the fast tier still runs each layer on a few small kernels of every kind.
- FAST_PARAMS: other parametrized test functions; only the listed case ids
  stay fast.

The exhaustive sweeps (SAMPLED) are the one part of the slow tier that
the default run leaves out: test functions that take every case of a
matrix (the corpus, the address shapes, the generated kernels) through one
more layer. `pytest` (CI's `.ci/run`) runs a stratified sample of their
cases (since session 24 the first case of each class, the class's kept case:
`kept_case_of_each_class`, `sampled_out`), which keeps every kind of case;
`pytest -m slow` (`.ci/nightly`) runs them all, as it runs the full mutation set.

The corpus verdicts (COVERED, test_corpus_verdict) are the other: the
default run proves a covering sample of the corpus (`covering_sample`: one
case per construct, class, verdict and failing kind; the decision and its
reason are written beside COVERED), `pytest -m slow` every case.

NIGHTLY (its table in tests/tiers_nightly.py) names the slow cases the
default run leaves out whole, each because another case of the default run
already makes the same check on the same layer (named beside it); `pytest -m
slow` runs them (`nightly_out`). Without `-m slow` the mutation set compiles only
the mutants its fast set takes (tests/cli/prove/mutation_set.py), so the two checks
that need every mutant compiled (the allow-list's entries, the drop counts) are NIGHTLY.

Coverage policy (the lead's decision, session 21, issue 29 item 7: the default
run must fit in about 450 CPU s, 10 minutes of a loaded 2-core machine). The
default run leaves to `pytest -m slow` only what repeats coverage:
1. SAMPLED sweeps: one case of every class (an eighth of each class until
   session 23; since session 24 the first case of each, by rule 6);
2. COVERED corpus verdicts: one case per construct and kind (`covering_sample`;
   every construct the corpus has stays covered; `pytest -m slow` proves every case);
3. families of tests that check the same rule on several kernels of one layer
   (real-CBMC agreement cases, suggestion searches on several project kernels,
   mutants of one kind, several C-corpus cases): the cheapest case that fails
   without the feature stays in the default run, the others are NIGHTLY with
   the kept case named beside each;
4. never the only test of a feature or of a soundness near miss (a kernel that
   must still fail); no test is deleted; `pytest -m "not slow"` stays the small tier
   and covers every layer (meant to be under 60 s; it is 300-360 CPU s, measured
   above); `pytest -m slow` still runs everything.
5. (the lead's decision, session 23, issue 29 item 7: the default run at or under
   650 user CPU s) first make a test cheaper with the same check (the same
   proof computed once and shared, a smaller kernel or launch where the check
   does not need the big one, the opaque kernel alone rather than every
   instance); then a slow test may go NIGHTLY when another default-run test
   makes the same check on the same code path at a cheaper level (a unit,
   frontend, MIR or prover test for a feature whose end-to-end test is slow).
   Each NIGHTLY entry names its kept tests in NIGHTLY_KEPT
   (tests/tiers_nightly.py; test_repository checks they exist and run by
   default), and its comment says how the kept test was seen to fail without
   the feature: a one-line sabotage of the product, not committed, under which
   the kept test fails (or, where none was run, that the kept test reaches the
   same function).
6. (the lead's decision on rule 4, session 24, issue 29 item 7: the default run at
   or under 650 user CPU s) a feature keeps a check in the default run, but a
   feature's check that runs over many kernels or cases may run a fixed, named,
   representative subset by default and the full set in `pytest -m slow`, provided
   (a) the subset is chosen deterministically and listed (a function of the files,
   no random draw per run: `kept_case_of_each_class` lists a sweep's), (b) it still
   covers every construct family the full set covers (a table from family to the
   kept case, checked by a test: test_tiers_sample's
   test_every_class_of_a_sweep_keeps_its_listed_case; the mutation set's kinds:
   test_mutation's test_every_kind_is_in_the_fast_set), and (c) a one-line sabotage
   of the product that the full set catches is also caught by the subset (a few
   are checked, not committed; README's session 24 bullet names them). SAMPLED's
   families are the case classes (a corpus kernel's verdict or obligation kind, an
   address shape's device, a generated kernels' chunk).

Invariant: every entry names an existing test file (and function); the
check in tests/test_repository.py fails on a stale entry. Marking only adds
the `slow` marker; only `sampled_out` and `nightly_out` deselect, and only
without `-m slow`.
"""
from __future__ import annotations

import ast
import re
from fractions import Fraction
from collections import defaultdict
from pathlib import Path

import pytest

from tiers_nightly import NIGHTLY

TESTS_DIR = Path(__file__).resolve().parent

SLOW_FILES = frozenset({
    "tests/packaging/test_wheel_layout.py",        # builds a wheel with pip
    "tests/cli/prove/test_prove_benchmark.py",     # runs benchmarks/prove_corpus.py
    "tests/cli/prove/test_prove_differential.py",  # random kernels: prover vs simulator
    "tests/cli/prove/test_mutation.py",            # proves every mutant of the corpus
    "tests/cli/prove/test_counterexample_determinism.py",  # 4 prove subprocesses
    "tests/backends/ptx/test_ptx_corpus.py",                # the whole corpus through ptxas
    "tests/examples/test_corpus_warp.py",          # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_compat.py",       # real Warp, as above
    "tests/warp_compat/test_warp_atan2.py",        # real Warp, as above
    "tests/warp_compat/test_warp_ops.py",          # real Warp, as above
    "tests/warp_compat/test_warp_addressing.py",   # real Warp, as above
    "tests/warp_compat/test_warp_generic_literals.py",  # real Warp, as above
    "tests/warp_compat/test_warp_rigid.py",        # real Warp, as above
    "tests/warp_compat/test_warp_structs.py",      # real Warp, as above
    "tests/warp_compat/test_warp_randn.py",        # real Warp, as above
    "tests/warp_compat/test_warp_erf.py",          # real Warp, as above
    "tests/warp_compat/test_warp_int_division.py", # real Warp, as above (child processes)
    "tests/warp_compat/test_warp_type_variables.py",  # real Warp, as above
    "tests/warp_compat/test_warp_vector_bitwise.py",   # real Warp, as above
    "tests/warp_compat/test_warp_float_literals.py",  # real Warp, as above
    "tests/frontend/test_fe_project_funcs.py",     # real Warp, as above (a package of funcs)
    "tests/cli/prove/test_prove_suggest_warp.py",  # real Warp, as above (the README demo)
    "tests/proofs/test_cbmc_real.py",              # runs the real CBMC (seconds per kernel)
    "tests/proofs/test_cbmc_loops.py",             # the real CBMC through loop invariants
    "tests/proofs/test_cbmc_invariant_obligation.py",  # the real CBMC on vk.invariant hints (3 s a case)
    "tests/proofs/test_cbmc_tickets.py",           # the real CBMC on atomic-ticket kernels (2 s a case)
    "tests/testing/test_examples_fuzz.py",         # every example under real Warp (fuzz)
    "tests/testing/test_generated_ci.py",          # 300 generated kernels on cpu and cpu:native
    "tests/testing/test_generated_prover.py",      # the prover as oracle on generated kernels
    "tests/warp_compat/test_warp_struct_ctors.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_held_arrays.py",   # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_kernel_cache.py",  # real Warp in child processes (compiles twice)
    "tests/warp_compat/test_warp_configuration.py",  # real Warp, as above (three configurations)
    "tests/warp_compat/test_warp_local_structs.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_length_generic.py",  # real Warp (compiles kernels with clang)
    "tests/proofs/test_suggest_segment_heads.py",  # 5 suggestion searches and re-proofs (about 20 CPU s)
    "tests/proofs/test_suggest_strides.py",  # 2 suggestion searches and re-proofs (about 10 CPU s)
    "tests/warp_compat/test_warp_struct_generic.py",  # real Warp (compiles kernels with clang)
    "tests/proofs/test_suggest_indirect.py",       # 7 suggestions searched and re-proved, 5-12 s each
    # 11 instances and their premise's re-proof (16 CPU s; NIGHTLY since session 26), and 2 of them (1.5)
    "tests/cli/prove/test_premise_proved_under_first.py",
    "tests/warp_compat/test_warp_numpy_constants.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_dynamic_updates.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_array_choices.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_held_reads.py",  # real Warp (compiles kernels with clang), 2 proofs
    "tests/warp_compat/test_warp_type_of_call.py",  # real Warp (compiles kernels with clang)
    "tests/warp_compat/test_warp_struct_search.py",  # real Warp, and 4 instances proved (about 25 CPU s)
    "tests/warp_compat/test_warp_struct_uniform.py",  # real Warp, and 4 instances proved (about 15 CPU s)
    "tests/frontend/test_fe_struct_uniform.py",  # 3 struct-search compiles (about 7 CPU s)
    "tests/warp_compat/test_warp_component_range_typing.py",  # real Warp, 3 compiles, 3 proofs (7 CPU s)
    "tests/proofs/test_suggest_packed_rows.py",  # 2 suggestion searches and re-proofs, 1 proof (about 15 CPU s)
    "tests/warp_compat/test_warp_premise_own_types.py",  # real Warp (compiles a kernel with clang)
    "tests/warp_compat/test_warp_premise_joint.py",  # real Warp (compiles a kernel with clang)
})

SLOW_TESTS = frozenset({
    # a kernel with too many typings whose every premise is refused: every candidate compiled and
    # re-proved (about 1.4 s on the 5-parameter kernel; 4 s on the 14 until session 31);
    # test_too_many_typings_get_the_float32_premise... is the fast one
    "tests/cli/prove/test_premise_one_precision.py::test_a_bug_at_every_precision_gets_no_typing_premise",
    # a proof's per-query z3 units after other work, and in fresh processes under two hash
    # seeds (about 9 s each); three prove processes over the corpus's kernels nearest a
    # budget, alone, in another order and with --jobs 2 (about 80 s under load)
    "tests/proofs/test_unit_determinism.py::test_a_proof_spends_the_same_units_on_every_query_after_other_work",
    "tests/proofs/test_unit_determinism.py::"
    "test_a_proof_spends_the_same_units_in_fresh_processes_under_other_hash_seeds",
    "tests/cli/prove/test_work_determinism.py::"
    "test_every_query_costs_the_same_units_alone_in_another_order_and_with_two_jobs",
    # the real CBMC: a whole call out of units, then one call per obligation and the harness's checks
    "tests/proofs/test_cbmc_split.py::test_real_cbmc_decides_the_easy_obligations_beside_a_hard_one",
    # searches and re-proves a contract on a generic kernel's opaque kernel (about 20 s)
    "tests/cli/prove/test_type_oblivious.py::"
    "test_a_contract_suggested_on_the_opaque_kernel_is_proved_pasted_for_every_instantiation",
    # an opaque search and re-proof, instances beside it (about 8 CPU s; nightly since session 20)
    "tests/cli/prove/test_type_oblivious.py::test_every_instance_takes_the_contract_the_opaque_proof_proved_under",
    # an opaque search cut short by a small kernel total, then the same search to the end (about 6 s)
    "tests/cli/prove/test_type_oblivious.py::"
    "test_a_type_oblivious_proof_its_share_cut_short_says_which_budget_and_claims_nothing",
    # matmul proved three times on floors of work (about 10 CPU s)
    "tests/proofs/test_kernel_work.py::test_a_spent_kernel_budget_leaves_the_rest_unknown_with_how_many_were_decided",
    # proves a generic segmented sum (9 s); the fast tier keeps the JSON of the same proof
    "tests/cli/prove/test_type_oblivious.py::"
    "test_the_html_and_markdown_documents_say_what_the_type_oblivious_proof_covers",
    # simulates a launch of 65,537 threads (a uint16 counter wraps), twice
    "tests/proofs/test_replay_wraps.py::test_a_uint16_ticket_race_is_confirmed_on_a_launch_where_the_counter_wraps",
    "tests/backends/simulator/test_sim_addressing.py::test_every_address_shape_matches_numpy_on_cuda",
    "tests/testing/test_generate.py::test_fuzz_generate_on_the_command_line",
    "tests/testing/test_generate.py::test_a_disagreeing_backend_is_found_shrunk_written_and_reproducible",
    # real Warp (compiles kernels with clang): the rebinding, overload and generic-instance probes
    "tests/frontend/test_fe_rebinding.py::test_warp_reads_the_rebound_value",
    "tests/frontend/test_fe_overload_choice.py::test_real_warp_picks_the_same",
    "tests/frontend/test_fe_project.py::test_real_warp_runs_the_package_as_the_simulator_does",
    "tests/cli/prove/test_generic_instances.py::test_real_warp_instantiates_int8_at_launch_and_wraps",
    "tests/frontend/test_fe_generic_probed.py::test_real_warp_builds_and_runs_the_same_instances",
    "tests/backends/native/test_native_ir.py::test_every_corpus_and_example_kernel_lowers_to_valid_ir_on_both_targets",
    # runs benchmarks/native_vs_warp.py (4 kernels proved and compiled, real Warp)
    "tests/backends/native/test_native_benchmark.py::test_the_benchmark_prints_both_modes_their_ratios_and_agreement",
    "tests/frontend/test_fe_programs.py::test_random_programs_match_python",
    "tests/backends/trace/test_trace_races.py::test_large_trace_is_fast",
    "tests/backends/trace/test_trace_cli.py::test_tiled_transpose_bank_conflicts",
    "tests/test_hypothesis_profiles.py::test_ci_environment_selects_the_ci_profile_and_local_runs_the_dev_one",
    "tests/proofs/test_replay_site_matching.py::test_chained_divisions_at_one_position_are_not_told_apart",
    "tests/proofs/test_replay_more.py::test_sort_race_is_confirmed_once_the_keys_cover_the_launch",
    "tests/proofs/test_replay_more.py::test_the_correct_odd_even_sort_is_never_confirmed_by_any_variant",
    "tests/proofs/test_prover_kernels.py::test_division_by_parameter",
    "tests/proofs/test_lemmas.py::test_grid_stride_loop_with_a_step_that_can_alias_races",
    "tests/proofs/test_lemmas.py::test_grid_stride_loop_with_bounded_sizes_is_race_free",
    "tests/proofs/test_geometry.py::test_tid_component_and_injectivity_facts_are_theorems",
    "tests/proofs/test_geometry.py::test_monotone_product_lemmas_are_theorems",
    "tests/proofs/test_product_bounds.py::test_a_3d_flat_index_over_launch_dims_is_proved",
    "tests/proofs/test_product_bounds.py::test_a_3d_flat_index_one_past_fails",
    "tests/proofs/test_product_bounds.py::test_a_4d_flat_index_over_launch_dims_is_proved",
    "tests/proofs/test_product_bounds.py::test_a_4d_flat_index_whose_last_dim_is_not_the_launch_fails",
    "tests/proofs/test_product_bounds.py::test_a_3d_int64_flat_index_with_bounded_sides_is_proved",
    "tests/proofs/test_geometry.py::test_same_block_facts_are_theorems_and_need_the_aligned_last_dim",
    "tests/proofs/reporting/test_report_html.py::test_html_renders_in_headless_chromium",
    "tests/test_docs_console.py::test_console_blocks_show_what_the_commands_print",   # runs the docs (Warp too)
    "tests/testing/test_strategies.py::test_shrinking_reaches_the_minimal_launch",
    "tests/testing/test_strategies.py::test_edge_values_are_drawn",
    "tests/testing/test_strategies.py::test_tight_contracts_are_never_broken_and_still_varied",
    "tests/testing/test_pytest_plugin.py::test_differential_and_matches_pass_and_fail",
    "tests/testing/test_fuzz_cli.py::test_a_mismatch_is_shown_and_its_command_reproduces_it",
    "tests/testing/test_fuzz.py::test_a_wrong_backend_is_caught_and_shrunk",
    "tests/testing/test_fuzz.py::test_a_racy_kernel_is_reported_as_a_kernel_bug_end_to_end",
    "tests/mir/test_mir_parser.py::test_awkward_constants_messages_names_and_files_round_trip",
    "tests/artifact/test_build_boundary.py::test_cli_build_writes_the_files_and_refuses_bad_input",
    "tests/artifact/test_build_boundary.py::test_all_sorted_at_the_boundary",
    "tests/proofs/reporting/test_dask.py::test_a_real_cluster_in_another_folder_gives_the_local_report",
    # two pytest collections of the corpus verdicts in subprocesses
    "tests/test_tiers_sample.py::test_the_default_run_proves_the_sample_and_slow_every_case",
    # over 10 s each in a profiled full run (load ~14 on 2 cores, Dec 2026); each proves
    # corpus-sized kernels that tests/cli/prove/test_corpus_verdicts.py already proves
    # in the fast tier's small set, for one prover feature: the full run keeps them
    "tests/proofs/test_exactness.py::test_hint_refuted_by_a_shared_entry_value_is_abstracted",
    "tests/proofs/test_exactness.py::test_hint_refuted_by_an_exact_entry_value_is_exact",
    "tests/proofs/test_geometry.py::test_a_tile_row_of_a_narrow_launch_may_wrap",
    "tests/proofs/test_suggest.py::test_an_index_guarded_at_a_parameter_gets_that_parameter_as_the_length",
    "tests/proofs/test_suggest.py::test_a_periodic_neighbour_gets_the_grid_length_next_to_the_launch_relation",
    "tests/proofs/test_suggest.py::test_a_float_derived_clamped_index_gets_the_grid_length_and_the_pasted_contract_proves",
    "tests/proofs/test_suggest.py::test_a_flat_index_gets_the_int64_product_of_its_extents_and_the_pasted_contract_proves",
    "tests/proofs/test_content_facts.py::test_a_row_guard_of_a_2d_launch_bounds_no_caller_count",
    "tests/proofs/test_widened_products.py::test_a_cube_with_a_coordinate_clamped_to_n_fails",
    "tests/proofs/test_widened_products.py::test_a_4d_int32_flat_index_under_an_int64_contract_is_proved",
    # 5-11 s each under load (Dec 2026): a project-like kernel proved, its suggestion
    # re-proved, the pasted file loaded and launched; the count cases stay fast
    "tests/cli/prove/test_warp_projects_benchmark.py::test_a_fake_project_end_to_end_through_the_cli",
    "tests/proofs/test_suggest_projects.py::test_csr_offsets_get_the_end_equal_to_the_length_admitted",
    "tests/proofs/test_suggest_projects.py::test_csr_reading_one_past_the_segment_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::test_a_reduction_written_for_one_thread_gets_the_one_thread_launch",
    "tests/proofs/test_suggest_projects.py::test_per_world_offsets_leave_room_for_the_launchs_second_index",
    "tests/proofs/test_suggest_projects.py::test_csr_segments_written_get_sorted_offsets",
    "tests/proofs/test_suggest_projects.py::test_csr_segments_written_one_past_get_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::test_a_world_read_one_past_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::test_two_index_arrays_filled_earlier_each_get_their_range",
    "tests/proofs/test_suggest_projects.py::test_pairs_indexing_one_past_get_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::test_an_asserted_length_relation_is_suggested_as_the_contract",
    "tests/proofs/test_suggest_projects.py::test_an_asserted_relation_two_past_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_uninit.py::test_a_block_is_one_row_only_when_the_last_launch_dim_is_a_block_multiple",
    "tests/proofs/test_uninit.py::test_a_read_before_the_missing_barrier_is_found_in_the_races_launch",
    "tests/proofs/test_replay_more.py::test_a_race_replay_traces_only_the_two_accesses_and_still_confirms_the_race",
    "tests/proofs/test_content_facts.py::test_strictly_increasing_models_leave_room_and_replay_fills_them",
    "tests/proofs/test_model_tiers.py::test_a_later_violation_is_looked_for_first_in_the_launch_of_an_earlier_one",
    "tests/cli/prove/test_launch_options.py::test_the_kernels_own_block_dim_is_accepted",
    "tests/cli/prove/test_prove_progress.py::test_ctrl_c_stops_at_once_with_exit_130_and_a_partial_summary",
    # real Warp (warp.init), as the other real-Warp tests; the write-back logic stays in the
    # fast tier through test_an_array_read_through_a_copy_gets_the_results_assigned_back
    "tests/backends/simulator/test_launch_arrays_and_limits.py::test_warp_cpu_arrays_are_read_and_written_back",
    "tests/backends/simulator/test_launch_arrays_and_limits.py::"
    "test_a_warp_array_of_the_wrong_dtype_is_refused_naming_the_parameter",
    # real Warp (clang builds 6 kernels): the directed start search's instances
    "tests/frontend/test_fe_generic_directed.py::test_real_warp_builds_and_runs_the_found_instances",
    # matmul proved three times under a kernel total (about 7 CPU s)
    "tests/proofs/test_kernel_total.py::test_a_spent_total_leaves_the_rest_unknown_with_which_budget_and_no_floor",
    # matmul and a failing shift through the CLI under a kernel total (about 6 CPU s); the fast
    # tier keeps the same verdicts through prove_source (test_a_failure_decided_first_...)
    "tests/proofs/test_kernel_total.py::test_the_cli_takes_kernel_budget_records_it_and_refuses_a_bad_one",
    # real Warp (clang builds a module, about 8 s): views passed straight as call arguments;
    # the fast tier keeps their bounds and refusals (the other tests of the file)
    "tests/warp_compat/test_warp_view_arguments.py::test_view_arguments_read_and_write_as_warp_does",
    # matmul proved five times, with and without the queries' charges (about 15 CPU s); the
    # fast tier keeps the charges' accounting (test_a_query_and_a_recompile_charge_...) and
    # a suggestion the charges cut short (test_a_suggestion_whose_recompile_...)
    "tests/proofs/test_kernel_total_charges.py::"
    "test_every_query_of_a_proof_is_charged_and_a_proof_the_charges_leave_short_is_unknown",
    # the near miss's opaque search and re-proofs, two instances beside it (about 13 CPU s)
    "tests/cli/prove/test_type_oblivious.py::test_no_instance_of_the_near_miss_claims_a_contract",
    # matmul proved five times, with and without the term charges (about 15 CPU s); the fast
    # tier keeps their accounting (test_each_term_charge_is_...) and a suggestion they cut short
    "tests/proofs/test_kernel_total_term_charges.py::"
    "test_the_term_charges_are_counts_the_same_on_every_run_and_cut_a_proof_short",
    # four instances searched and re-proved three times, with and without the reserve (about 8 CPU s);
    # the fast tier keeps the reserve's accounting (test_a_part_share_leaves_the_reserve_out_...)
    "tests/proofs/test_suggestion_reserve.py::test_the_reserve_lets_a_starved_instance_re_prove_its_contract",
    # three instances, two searches and their re-proofs, twice (about 6 CPU s); the fast tier keeps
    # the near miss (test_a_sibling_contract_is_proved_under_only_where_its_re_proof_proves)
    "tests/cli/prove/test_sibling_contracts.py::test_the_reused_contract_spends_the_same_units_on_every_run",
    # two proofs of the six-output update kernel, one failing with a replayed witness (about 17 s)
    "tests/frontend/test_fe_dynamic_updates.py::test_the_updates_are_proved_with_their_index_guard",
    # the choice kernel proved, its one-sided near miss failed and replayed (about 9 s)
    "tests/frontend/test_fe_array_choices.py::test_the_kernel_is_proved_and_a_guard_on_one_array_fails_on_the_other",
    # matmul proved twice under a total cut short (about 4 s at load 20); the fast tier keeps the
    # ledger's accounting and its text (test_the_ledger_follows_the_charges_into_parts_...)
    "tests/proofs/test_total_spent_on.py::test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up",
    # matmul proved six times, with and without the analysis and term charges (about 15 CPU s,
    # 40 s wall at load 10); the fast tier keeps their accounting (test_noted_work_is_drained_...)
    "tests/proofs/test_analysis_charges.py::test_the_analysis_and_term_charges_are_counts_and_cut_a_proof_short",
})

FAST_PARAMS = {
    # the type-oblivious proof against concrete proofs: one correct kernel, the literal near miss
    "tests/cli/prove/test_type_oblivious.py::test_the_opaque_proof_proves_what_every_concrete_instantiation_proves":
        {"neighbours"},
    "tests/cli/prove/test_type_oblivious.py::"
    "test_a_near_miss_is_not_proved_as_a_whole_and_a_concrete_instantiation_shows_the_bug":
        {"neighbours_off_by_one"},     # the other cases: the opaque kernel and its first instance
    "tests/cli/prove/test_generic_instances.py::test_a_type_oblivious_proof_proves_every_instantiation_in_every_format":
        {"json"},
    "tests/cli/prove/test_generic_instances.py::"
    "test_the_instantiations_not_enumerated_are_unknown_with_the_reason_in_every_format": {"json"},
    "tests/proofs/test_opaque_float_encoding.py::test_a_float_binary_op_of_opaque_values_is_unconstrained":
        {"%x.0, %x.0-sub"},
    "tests/proofs/test_opaque_float_encoding.py::test_a_float_compare_of_opaque_values_is_a_fresh_bool":
        {"%x.0, %x.0-lt"},
    "tests/proofs/test_opaque_float_encoding.py::test_a_float_unary_op_of_an_opaque_value_is_unconstrained":
        {"abs"},
    "tests/proofs/test_opaque_float_encoding.py::test_a_conversion_of_an_opaque_value_is_unconstrained":
        {"int8"},
    "tests/cli/prove/test_generic_instances.py::test_every_format_gives_a_verdict_per_instance":
        {"short"},
    "tests/mir/test_op_table.py::test_native_matches_reference": {"int64"},
    "tests/mir/test_op_table.py::test_reference_against_numpy": {"int32"},
    "tests/mir/test_op_table.py::test_simulator_matches_reference": {"int32", "bool"},
    "tests/mir/test_op_table.py::test_smt_semantics_match_reference": {"int32", "bool"},
    "tests/backends/native/test_native_semantics.py::test_every_op_matches_simulator": {"int32"},
    "tests/backends/native/test_native_semantics.py::test_every_cast_matches_simulator": {"int32", "float16"},
    "tests/proofs/test_replay_site_matching.py::test_only_the_obligations_own_violation_confirms_it":
        {"bounds-same-line", "race-same-line"},
    "tests/proofs/test_lemmas.py::test_every_remainder_lemma_is_a_theorem": {"SRem"},
    "tests/proofs/test_soundness_regressions.py::test_prover_fails_the_buggy_obligation_at_the_marked_line":
        {"divergence_nested_break", "divergence_two_exits", "access_before_the_assert_in_a_loop"},
    "tests/backends/ptx/test_ptx_golden_mir.py::test_golden_kernels_assemble":
        {"block_reverse-sm_80", "atomics-sm_90", "div_sqrt_fast-sm_100", "div_exp-sm_75"},
    "tests/frontend/test_fe_requires_short_circuit.py::test_guarded_division_in_requires_is_proved_and_never_faults":
        {"d == 0 or n // d > 2", "0 < d < n // d"},
    # the whole corpus through gcc (42 s profiled); the examples keep the C encoding in the fast tier
    "tests/encoders/test_c_corpus.py::test_c_of_every_kernel_compiles_warning_free": {"examples-gcc", "examples-clang"},
    "tests/backends/simulator/test_sim_addressing.py::test_every_address_shape_matches_numpy":
        {"cpu-shared2d_vec3_0", "cpu:native-shared2d_cm_mat22_0", "cpu-shared4d_cm_int32_2",
         "cpu-global3d_mat22_1", "cpu:native-global1d_int32_0"},
    "tests/encoders/test_c_addressing.py::test_address_shapes_match_numpy_in_c": {"shared2d_cm_int32_0"},
    # session 24 (rule 6 (c)): with the C race check gone (the race partners' soft check in
    # encoders/c/emitter.py made `!(0)`) only these race cases' C programs stop failing; no
    # class's kept case (nor the eighth sampled before) caught it
    "tests/encoders/test_c_corpus.py::test_confirmed_counterexample_fails_the_same_obligation_in_c":
        {"race_warp_reset_and_atomic_add"},
}

CORPUS_WIDE = frozenset({
    "tests/proofs/test_typed_decisions.py::test_rewording_every_message_changes_no_decision",
    "tests/mir/test_mir_parser.py::test_every_corpus_and_example_kernel_round_trips",
    "tests/cli/prove/test_corpus_verdicts.py::test_corpus_verdict",
    "tests/cli/prove/test_corpus_verdicts.py::test_example_is_proved",
    "tests/backends/trace/test_trace_corpus.py::test_trace_agrees_with_expected_verdict",
    "tests/examples/test_corpus_witnesses.py::test_witness_raises_the_documented_error_at_the_buggy_site",
    "tests/examples/test_corpus_witnesses.py::test_race_witness_shows_every_buggy_pair_in_the_trace",
    "tests/examples/test_corpus_witnesses.py::test_correct_kernel_runs_cleanly_and_race_free",
    "tests/backends/simulator/test_sim_corpus.py::test_corpus_kernel_decodes",
    "tests/backends/simulator/test_sim_corpus.py::test_proved_corpus_kernels_run_cleanly",
    "tests/backends/native/test_native_corpus.py::test_proved_corpus_kernel_matches_simulator",
    "tests/backends/native/test_native_corpus.py::test_corpus_kernel_on_hypothesis_inputs",
    "tests/backends/native/test_native_corpus.py::test_failing_corpus_kernel_fails_the_same_way",
    "tests/backends/native/test_native_examples.py::test_example_native_equals_simulator",
    "tests/backends/cuda/test_cuda_fake_driver.py::test_example_through_the_cuda_device_path",
    "tests/backends/cuda/test_cuda_fake_driver.py::test_corpus_harness_through_the_cuda_device_path",
    "tests/encoders/test_c_corpus.py::test_confirmed_counterexample_fails_the_same_obligation_in_c",
    "tests/encoders/test_c_corpus.py::test_admissible_launches_of_a_proved_kernel_never_fail_a_check",
    "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator",
})

# Small kernels that keep every obligation kind, both verdicts, shared memory,
# barriers, atomics and 2-D launches in the fast tier.
FAST_CORPUS = frozenset({
    "ok_copy_guard_both_shapes", "bounds_off_by_one_le", "ok_2d_guarded",
    "race_all_threads_write_slot0", "ok_atomic_counter_global", "race_reduce_missing_barrier",
    "ok_barrier_block_uniform_branch", "divergence_barrier_thread_dependent_branch",
    "assert_fails_shape_positive", "divzero_mod_by_shape_unguarded",
    "invariant_fails_loop_bound_hint", "ok_invariant_loop_counter_range",
})
FAST_EXAMPLES = frozenset({"saxpy"})


def _names(folder: Path) -> list[str]:
    return sorted((p.stem for p in folder.glob("*.py")), key=len, reverse=True)


_CASE_NAMES = _names(TESTS_DIR / "corpus") + _names(TESTS_DIR.parent / "examples")
FAST_CASES = FAST_CORPUS | FAST_EXAMPLES


def case_of(callspec_id: str) -> str | None:
    """The corpus kernel or example a parametrized case runs (the longest
    name the case id starts with, followed by its end or '-'), else None."""
    for name in _CASE_NAMES:
        if callspec_id == name or callspec_id.startswith(name + "-"):
            return name
    return None


def is_slow(nodeid: str, callspec_id: str | None) -> bool:
    """Whether the tables above make the test `nodeid` slow."""
    path, _, rest = nodeid.partition("::")
    function = rest.split("[", 1)[0]
    if path in SLOW_FILES or f"{path}::{function}" in SLOW_TESTS:
        return True
    if is_nightly(f"{path}::{function}", callspec_id):
        return True
    if callspec_id is None:
        return False
    if f"{path}::{function}" in CORPUS_WIDE:
        return case_of(callspec_id) not in FAST_CASES
    fast = FAST_PARAMS.get(f"{path}::{function}")
    return fast is not None and callspec_id not in fast


def fast_tier_only(markexpr: str | None) -> bool:
    """True for `-m "not slow"`, where the files of SLOW_FILES need not even
    be collected (their collection can take seconds by itself)."""
    return " ".join((markexpr or "").split()) == "not slow"


def ignored_in_fast_tier(path: Path) -> bool:
    """Whether `path` is one of SLOW_FILES (collection is skipped for it in
    the fast tier; every one of its tests would be deselected anyway)."""
    try:
        rel = Path(path).resolve().relative_to(TESTS_DIR.parent).as_posix()
    except ValueError:
        return False
    return rel in SLOW_FILES


def mark_slow(items) -> None:
    """Add the `slow` marker to every collected item the tables name."""
    for item in items:
        spec = getattr(item, "callspec", None)
        if is_slow(item.nodeid, spec.id if spec is not None else None):
            item.add_marker(pytest.mark.slow)


# --- the exhaustive sweeps: sampled in the default run ----------------------------
#: Each runs one case per corpus kernel, address shape or generated-kernel
#: chunk through a layer whose every op, obligation kind and verdict the
#: sample below still reaches (measured 2026-12-05: together about a third
#: of the suite's CPU). In the default run only the first case of each class is
#: kept (rule 6 of the module doc, session 24; an eighth of each class from session
#: 21, a fourth before, the first case of every class always), plus the FAST_CASES
#: and FAST_PARAMS; `pytest -m slow` runs them all.
SAMPLED = frozenset({
    "tests/encoders/test_c_corpus.py::test_confirmed_counterexample_fails_the_same_obligation_in_c",
    "tests/encoders/test_c_corpus.py::test_admissible_launches_of_a_proved_kernel_never_fail_a_check",
    "tests/backends/trace/test_trace_corpus.py::test_trace_agrees_with_expected_verdict",
    "tests/backends/simulator/test_sim_addressing.py::test_every_address_shape_matches_numpy",
    "tests/testing/test_generated_ci.py::test_generated_kernels_agree_on_cpu_and_cpu_native",
    "tests/backends/native/test_native_corpus.py::test_proved_corpus_kernel_matches_simulator",
    "tests/backends/native/test_native_corpus.py::test_failing_corpus_kernel_fails_the_same_way",
    "tests/examples/test_corpus_witnesses.py::test_correct_kernel_runs_cleanly_and_race_free",
    "tests/proofs/test_typed_decisions.py::test_rewording_every_message_changes_no_decision",
    # session 21: every proved corpus kernel on the simulator (139 cases, 3.5 CPU s)
    "tests/backends/simulator/test_sim_corpus.py::test_proved_corpus_kernels_run_cleanly",
    # session 24 (rule 6): the witnesses of the failing corpus kernels and every corpus
    # file's decoding (37, 107 and 300 cases, 3.4 CPU s in session 23's profiled run)
    "tests/examples/test_corpus_witnesses.py::test_race_witness_shows_every_buggy_pair_in_the_trace",
    "tests/examples/test_corpus_witnesses.py::test_witness_raises_the_documented_error_at_the_buggy_site",
    "tests/backends/simulator/test_sim_corpus.py::test_corpus_kernel_decodes",
})


def case_class(key: str) -> str:
    """The class a case is sampled within: its leading letters (`bounds` for
    `bounds_off_by_one_le`, `cpu` for `cpu:native-global1d_int32_0`)."""
    return re.match(r"[a-z]*", key).group()


def kept_case_of_each_class(keys) -> dict[str, str]:
    """The listed representative subset of a sweep (rule 6 of the module doc):
    each class (`case_class`) of `keys` -> its kept case, the first of the class
    in sorted order. A function of the keys alone: the same on every run and
    worker, and every class of the full set has its entry."""
    kept: dict[str, str] = {}
    for key in sorted(set(keys)):
        kept.setdefault(case_class(key), key)
    return kept


def sample_keys(keys) -> set[str]:
    """The keys the default run keeps: the kept case of each class
    (`kept_case_of_each_class`), plus the FAST_CASES."""
    return set(kept_case_of_each_class(keys).values()) | (set(keys) & FAST_CASES)


def runs_every_case(markexpr: str | None) -> bool:
    """Whether the run selects the slow tier by name (`-m slow`, `-m "slow or x"`)."""
    return "slow" in (markexpr or "") and not fast_tier_only(markexpr)


def keys_of_the_run(keys, markexpr: str | None) -> set[str]:
    """For a sweep inside one test (one compiler run over every corpus file):
    every key with `-m slow`, else the same stratified sample as SAMPLED's
    cases (`sample_keys`)."""
    keys = set(keys)
    return keys if runs_every_case(markexpr) else sample_keys(keys)


def sampled_out(items) -> list:
    """The items of SAMPLED and COVERED functions outside their sample (a
    function's cases are its callspec ids, read as corpus kernels where they
    are)."""
    by_function: dict[str, list] = defaultdict(list)
    for item in items:
        spec = getattr(item, "callspec", None)
        function = item.nodeid.split("[", 1)[0]
        if spec is not None and (function in SAMPLED or function in COVERED):
            by_function[function].append((case_of(spec.id) or spec.id, item))
    out = []
    for function, cases in by_function.items():
        keys = [key for key, _ in cases]
        kept = covering_sample(keys) if function in COVERED else sample_keys(keys)
        kept |= FAST_PARAMS.get(function, set())
        out += [item for key, item in cases if key not in kept]
    return out


# --- the corpus verdicts: a covering sample in the default run -------------------
#: Decision (session 16, issue 29 item 7): the default run proves a fixed
#: covering sample of the corpus for its verdicts, `pytest -m slow` (.ci/nightly)
#: every case. Sharing the corpus compiles (corpus_loader.compiled) and the
#: proofs (corpus_reports.case_reports) took little off: each case is proved
#: once per run already, and the whole corpus's proofs are about 100 CPU s of a
#: default run that has to fit in about 450. The sample (`covering_sample`) is,
#: since session 21 (the coverage policy in this module's docstring), one case per
#: construct and kind: the FAST_CASES, completed greedily until it holds every
#: construct some case of the corpus uses (`constructs`), every class of case,
#: every verdict and every failing obligation kind (`covered_items`); until
#: session 20 it was the stratified fourth of each class plus a case for every
#: construct that lacked. It is a function of the corpus files alone: no
#: randomness, the same on every worker.
#: `verikern selftest` (the product's own check of every corpus verdict, in the
#: nightly run through the same test's every case) is unchanged.
#: Session 17 added the MIR round trip of every corpus kernel (8.2 of 908.6 CPU s): its
#: sample holds every construct, so the MIR the corpus lowers to still round-trips.
COVERED = frozenset({
    "tests/cli/prove/test_corpus_verdicts.py::test_corpus_verdict",
    "tests/mir/test_mir_parser.py::test_every_corpus_and_example_kernel_round_trips",
})


def constructs(path: Path) -> frozenset[str]:
    """The constructs the kernel file `path` uses, as the sample counts
    them: every `vk.`/`wp.` name it reads (builtins, types, decorators,
    launch and memory functions), every loop, jump, assert and conditional
    expression kind, every binary operator, every `# prove-args:` option,
    and several kernels (a generic kernel's instances)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("vk", "wp"):
            out.add(f"api:{node.attr}")
        elif isinstance(node, (ast.For, ast.While, ast.Break, ast.Continue, ast.Return,
                               ast.Assert, ast.IfExp, ast.Lambda, ast.ClassDef)):
            out.add(f"syntax:{type(node).__name__}")
        elif isinstance(node, ast.BinOp):
            out.add(f"op:{type(node.op).__name__}")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# prove-args:"):
            out |= {f"arg:{w}" for w in line.split()[2:] if w.startswith("--")}
        elif line.startswith("# kernel:"):
            out.add("several kernels")
    return frozenset(out)


def covered_items(path: Path) -> frozenset[str]:
    """What the covering sample keeps a case of, for the corpus file `path`: its
    `constructs`, its class (`case_class` of its name), its expected verdict and
    each failing kind of its `# expect:` header."""
    out = set(constructs(path)) | {f"class:{case_class(path.stem)}"}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# expect:"):
            status, _, kinds = line[len("# expect:"):].strip().partition(" ")
            out.add(f"verdict:{status}")
            out |= {f"kind:{k.strip()}" for k in kinds.split(",") if k.strip()}
    return frozenset(out)


def covering_sample(keys, folder: Path = TESTS_DIR / "corpus") -> set[str]:
    """One case per construct and kind: the keys' FAST_CASES, then, while some
    `covered_items` item of the keys' files is not held yet, the key whose file
    holds the most of the items still missing per line of source (a file's
    lines stand in for its proof's cost: a short case that brings the same
    items is the cheaper one to prove; the first in sorted order among equals).
    A key without a file in `folder` (an example, a case id) is sampled as
    `sample_keys` samples those keys."""
    keys = sorted(set(keys))
    uses = {k: covered_items(folder / f"{k}.py") for k in keys if (folder / f"{k}.py").is_file()}
    lines = {k: max(1, len((folder / f"{k}.py").read_text().splitlines())) for k in uses}
    kept = sample_keys([k for k in keys if k not in uses]) | (set(uses) & FAST_CASES)
    held = set().union(*(uses[k] for k in kept if k in uses))
    every = set().union(*uses.values())
    while held != every:
        # the most new items per line: compared as fractions (cross-multiplied), exact
        best = min(uses, key=lambda k: (Fraction(-len(uses[k] - held), lines[k]), k))
        kept.add(best)
        held |= uses[best]
    return kept


def covering_keys_of_the_run(keys, markexpr: str | None) -> set[str]:
    """For a test that reads the corpus verdicts' proofs of several cases
    (corpus_reports): every key with `-m slow`, else `covering_sample`'s, so
    that it proves no case the verdicts do not."""
    keys = set(keys)
    return keys if runs_every_case(markexpr) else covering_sample(keys)


# --- left to the nightly run ----------------------------------------------------
#: NIGHTLY (tests/tiers_nightly.py): test function -> the case ids (None: every case)
#: the default run leaves to `pytest -m slow`, each beside its cheaper default-run case.
def is_nightly(function: str, callspec_id: str | None) -> bool:
    """Whether the case `callspec_id` of `function` ("path::name") is one of
    NIGHTLY's (a case id matches a listed id equal to it or followed by "-")."""
    if function not in NIGHTLY:
        return False
    ids = NIGHTLY[function]
    return ids is None or (callspec_id is not None and any(
        callspec_id == i or callspec_id.startswith(i + "-") for i in ids))


def nightly_out(items) -> list:
    """The items NIGHTLY leaves to `pytest -m slow`."""
    out = []
    for item in items:
        spec = getattr(item, "callspec", None)
        if is_nightly(item.nodeid.split("[", 1)[0], spec.id if spec is not None else None):
            out.append(item)
    return out


# --- the order the run hands tests to its workers -------------------------------
def heavy_modules_first(items) -> None:
    """Reorder `items` in place: the modules holding a slow-marked test first,
    then the others, each module's tests kept together and in their order
    (module-scoped fixtures are built once), and the modules in collection
    order within each group. pytest-xdist's worksteal hands each worker a
    contiguous share and an idle worker steals from the end of another's, so
    with the long tests early the run ends on short ones instead of one worker
    finishing a long proof while the other waits. The order is a function of
    the collection, the same on every worker (xdist requires it)."""
    heavy = {item.nodeid.split("::", 1)[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in heavy)
