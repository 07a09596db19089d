"""The slow cases the default run leaves out whole (tests/tiers.py `NIGHTLY`,
read there by `is_nightly` and `nightly_out`): `pytest -m slow` runs them.

A table of its own so that tests/tiers.py stays under the project's module size;
entries are appended, each with the cheaper default-run case that makes its check.
Invariant: every entry names an existing test function and case ids written in
its file (tests/test_repository.py).
"""
from __future__ import annotations

#: test function -> the case ids (None: every case) the default run leaves to
#: `pytest -m slow`. Only cases whose check the default run makes anyway, on the
#: same layer, through a cheaper case (the comment names it); the CPU seconds are
#: from a profiled default run (2026-12-05, `CI=true`, 2 workers, load about 7).
NIGHTLY: dict[str, frozenset[str] | None] = {
    # The real CBMC (issue 28: CI runs it): the default run keeps a representative set,
    # every C construct family and obligation kind CBMC decides, each through its cheaper
    # case (CPU s from a profiled `CI=true` run, 2026-12-05 session 15, load about 11):
    # - contract assumptions: gaps (all_sorted, dropped: the assert fails) and the kept
    #   agreement cases ok_assert_contents_with_contract (all_in_range, every launch;
    #   NIGHTLY since session 32), ok_scatter_permutation (all_distinct and all_in_range, every launch: the race proved)
    #   and bounds_gather_range_off_by_one (an access all_in_range does not cover fails);
    # - every launch: those two, and ok_reduce_tree's halving loop (shared memory, barriers);
    # - fixed launches of 2 and 3 dimensions: ok_2d_guarded, ok_grid3d_fill_guarded;
    # - arrays of two dimensions (CBMC's pointer checks off): ok_2d_guarded (guarded
    #   accesses proved), bounds_2d_launch_dims_swapped (an access past fails) and
    #   race_tiles_1d_overlapping_columns (a race on a 2-D array through a division by a
    #   parameter: the packed race key; NIGHTLY since session 26, see below);
    # - division: test_an_int_min_by_minus_one_failure_names_the_overflow (INT_MIN // -1;
    #   the agreement case divzero_segment_mean_count_nonzero until session 20) and
    #   divzero_mod_by_shape_unguarded (the thread stops there); asserts: the two stops cases;
    # - float16, an unmodelled library call, loops before a failed unwinding, work bounds.
    # Left to `pytest -m slow`, each a second case of a family above:
    # check_range (17.6 s): the all_in_range kernel ok_assert_contents_with_contract proves;
    # scatter (10.6): all_distinct, which ok_scatter_permutation keeps; saxpy (6.3): a
    # shape relation for every launch, dropped (bounds fail), as gaps' contract is
    "tests/proofs/test_cbmc_real.py::test_dropping_a_contract_changes_cbmcs_answer":
        frozenset({"check_range", "scatter", "saxpy"}),
    # bounds_off_by_one_le (11.2): the same CBMC proof as
    # test_a_cbmc_counterexample_replays_on_the_simulator (NIGHTLY since session 32; a CBMC
    # failure replayed: the kept bounds_gather_range_off_by_one); race_reduce_missing_barrier
    # (6.1): shared memory and barriers, kept through ok_reduce_tree, a failed race
    # through race_tiles (since session 26 race_all_threads_write_slot0); ok_conv3x3_zero_pad
    # (5.5) and ok_transpose_tiles_1d_column_major (4.6): proofs over 2-D arrays, kept through
    # ok_2d_guarded and the race key through race_tiles (since session 26 ok_2d_guarded's,
    # whose races CBMC proves through it); bounds_grid3d_guard_wrong_dim (3.9): the 3-D launch
    # ok_grid3d keeps;
    # bounds_2d_stencil_missing_halo (2.5): exact traces, also tests/proofs/test_cbmc.py's
    # (a fake CBMC); ok_segment_mean_positive_count: the proved twin of the kept divzero case
    "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3":
        frozenset({"bounds_off_by_one_le.py", "race_reduce_missing_barrier.py", "ok_conv3x3_zero_pad.py",
                   "ok_transpose_tiles_1d_column_major.py", "bounds_grid3d_guard_wrong_dim.py",
                   "bounds_2d_stencil_missing_halo.py", "ok_segment_mean_positive_count.py",
                   # session 20: divzero_segment_mean_count_nonzero (6.6 CPU s, 2026-12-06, load
                   # about 9): INT_MIN // -1 behind a nonzero guard, failed under CBMC at the
                   # obligation's overflow assert and confirmed by replay, which the kept
                   # test_an_int_min_by_minus_one_failure_names_the_overflow checks (5.7) on
                   # the same C asserts; its z3 verdict is test_corpus_verdict's
                   "divzero_segment_mean_count_nonzero.py",
                   # session 26: race_tiles_1d_overlapping_columns (11.3 CPU s, -n 0 at main
                   # cb2c72d, load 3.5): two CBMC calls of 4-5 s (the second with VK_SMALL for a
                   # witness small enough to replay). Kept: ok_2d_guarded (1.1), whose races CBMC
                   # proves through the packed key of a 2-D array -- sabotage: emitter.race_key
                   # packing `i0 << 32` without i1 -> ok_2d_guarded fails (race_tiles does not) --
                   # and race_all_threads_write_slot0 on 2 threads (0.7), a race CBMC fails, looked
                   # for again under VK_SMALL and confirmed by replay, as race_tiles's -- sabotage:
                   # the race check's `!(hit)` made `!(0)` (emitter.py) -> both fail, CBMC proving
                   # the race z3 fails
                   "race_tiles_1d_overlapping_columns.py",
                   # session 32: ok_assert_contents_with_contract (2.7 CPU s): all_in_range over
                   # every launch, as the kept ok_scatter_permutation (4.3) with all_distinct.
                   # Sabotage: contracts.assume_contracts's all_in_range assumed with its lower
                   # bound only -> both fail (and NIGHTLY's check_range)
                   "ok_assert_contents_with_contract.py"}),
    # invariant_fails_halving_too_strong (3.5 CPU s): a failed hint confirmed by replay,
    # as the kept invariant_fails_entry_from_shared (its proved twin kept too)
    "tests/proofs/test_cbmc_invariant_obligation.py::test_cbmc_decides_the_invariant_obligation":
        frozenset({"invariant_fails_halving_too_strong.py"}),
    # The prefix-offsets loop proved through its invariant. Until session 32 the fixed launch
    # (64,) in blocks of 32 (8.1 CPU s) was left out and every launch kept; since session 32
    # the fixed launch is the one-thread launch the kernel is written for (3.0) and is kept,
    # and every launch (10.0) is left out: the same C loop abstraction and invariant checks,
    # agreeing with z3, as the kept fixed-launch case and
    # test_checks_in_and_after_a_loop_over_a_parameter_are_proved make. Sabotage: the
    # `__CPROVER_assume({inv})` line dropped (encoders/c/loops.py) -> all three fail
    "tests/proofs/test_cbmc_loops.py::test_an_unbounded_loop_is_proved_through_its_invariant":
        frozenset({"every-launch"}),
    # 13.2 s. Proves every example again (test_example_is_proved does) and
    # renders the page in Chromium as the kept
    # test_html_renders_in_headless_chromium does; the page's sections, one
    # per kernel, are test_html_has_every_section_marks_and_hashes's.
    "tests/proofs/reporting/test_report_html.py::test_the_examples_report_renders_in_headless_chromium":
        None,
    # 21.5 s (three prove processes over six model-rich kernels and a CPU burner). The
    # same whole report under other hash seeds is the kept
    # test_counterexample_determinism's (three seeds and a perturbed process), the
    # verdicts at --jobs 2 test_prove_cli's (test_kernel_filter_and_folder_input);
    # and the default run is itself loaded on CI
    # (.ci/run beside other processes) while test_corpus_verdict expects every
    # corpus verdict exactly, which a verdict that depended on time would break.
    "tests/cli/prove/test_determinism.py::"
    "test_reports_identical_across_hash_seeds_and_load_and_failures_across_job_counts": None,
    # 47 of the 100 s (load ~9, 2026-12-05 session 13) of the C address cases: the C
    # compile of the largest kernel. Its features stay in C in the default run, each in a
    # smaller case: 3-D (global3d_int32_1), shared column-major (shared2d_cm_int32_0),
    # shared with a compound element (shared1d_cm_mat22_0), vec3 (global1d_vec3_0);
    # and the simulator's sample runs 3-D shared column-major vec3 (shared3d_cm_vec3_0) on
    # cpu and cpu:native
    "tests/encoders/test_c_addressing.py::test_address_shapes_match_numpy_in_c":
        frozenset({"shared3d_cm_vec3_1"}),
    # 207 of the 300 s (load ~9, 2026-12-05 session 13) the 24 differential seeds took: the
    # four slowest random kernels, drawn by the same generators as the 20 seeds kept
    # (7 global, 8 shared, 3 grid), which check every obligation kind above its floor
    # without them (the floors are judged on the seeds of the run: seeds_in_the_run)
    "tests/cli/prove/test_prove_differential.py::test_proved_obligations_hold_on_simulated_launches":
        frozenset({"global9", "grid1", "global5", "grid4"}),
    # 6.6 of the 28 CPU s (load ~13, 2026-12-05 session 14) every op and cast of the twelve
    # scalar types took natively (each op its own LLVM -O3 compile, about 90 ms): the three
    # middle widths. The LLVM lowering of an integer op is generic in the width (ir.IntType
    # of the type's bits, signed or not), and the default run keeps every op and cast on
    # both sides of each: int8 and int32/int64 (signed), uint8 and uint64 (unsigned);
    # tests/mir/test_op_table.py's test_native_matches_reference runs uint32's exact ops
    # natively against the reference
    # Session 22 adds int8 (1.5) and int64 (1.6 CPU s of this session's profiled default run,
    # load 8-11) to the ops: as for uint32, the kept test_native_matches_reference of
    # tests/mir/test_op_table.py runs every op of those two types natively (each its own
    # kernel, the same elementwise MIR) against the independent reference; the kept int32,
    # uint8, uint64, bool and the floats compare every op with the simulator.
    # Session 32 adds uint64 (1.3-1.6 CPU s): the 64-bit width natively is the kept int64 of
    # test_native_matches_reference, the unsigned ops natively its uint32 (sabotage: the LLVM
    # lowering's unsigned `lshr` made `ashr`, backends/llvm/ops.py -> the kept uint32 fails, as
    # uint64 and uint8 here do); uint8 stays for the narrow unsigned width, as int8 there
    "tests/backends/native/test_native_semantics.py::test_every_op_matches_simulator":
        frozenset({"int16", "uint16", "uint32", "int8", "int64", "uint64"}),
    "tests/backends/native/test_native_semantics.py::test_every_cast_matches_simulator":
        frozenset({"int16", "uint16", "uint32"}),
    # Session 17 (CPU s of a profiled `CI=true pytest -n 2` with CBMC, 2026-12-05, load 12-14).
    # 25.2: three prove processes over the kernels nearest a budget (alone, reordered,
    # --jobs 2); each query's units after other work and in fresh processes under other
    # hash seeds are tests/proofs/test_unit_determinism.py's two kept tests (5.2), the
    # verdicts at --jobs 2 test_prove_cli's test_kernel_filter_and_folder_input
    "tests/cli/prove/test_work_determinism.py::"
    "test_every_query_costs_the_same_units_alone_in_another_order_and_with_two_jobs": None,
    # 28.0, most of it the CPU burner it starts (counted as its child). A real CBMC call out
    # of units, then decided obligation by obligation, every verdict exact in a run loaded on
    # CI: the kept test_cbmc_split.py's test_real_cbmc_decides_the_easy_obligations_beside_a_hard_one;
    # the reason's wording, test_cbmc.py's test_a_cbmc_run_out_of_units_is_unknown_and_says_why
    "tests/proofs/test_cbmc_real.py::test_cbmc_is_bounded_by_work_not_by_the_machines_load": None,
    # 17.8 for both wrong invariants on every launch; on the one-thread launch the kernel is
    # written for, 5.1: the same C loop abstraction and invariant checks; the abstraction is the
    # kept test_an_unbounded_loop_is_proved_through_its_invariant[fixed-launch] (every launch
    # until session 32). Session 32: one-thread gt0 (1.6 CPU s), an invariant false on entry,
    # as the kept test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed checks (1.7),
    # the reasons and abstracted traces the kept one-thread le case's. Sabotage: the entry
    # check dropped (loops.py edge(): `if inv != "1" and back:`) -> gt0 and hide_a_bug fail
    "tests/proofs/test_cbmc_loops.py::test_a_wrong_invariant_fails_cbmcs_check_and_proves_nothing":
        frozenset({"every-launch", "one-thread-gt0"}),
    # Session 19: the two checks that need every mutant of the sources compiled (about 1,650,
    # 24 CPU s a run once the fast set's own 121 compile alone in 7: mutation_set.py
    # `_fast_candidates`). Whether each allow-list entry is still generated and compiles,
    # and the drop counts over every candidate: the full set's (`pytest -m slow` compiles
    # every mutant). The default run keeps the fast set's kinds (test_every_kind_is_in_the_fast_set)
    # and every fast mutant's verdict, allow-listed ones proved again.
    "tests/cli/prove/test_mutation.py::test_allow_list_entries_are_generated_compiled_mutants_with_reasons": None,
    "tests/cli/prove/test_mutation.py::"
    "test_every_kind_is_in_the_fast_set_and_only_benign_candidates_are_dropped": None,
    # Session 19 (CPU s of session 18's whole run with every branch merged): a second case
    # of a check the default run keeps. The 3-d same-block lemmas at block size 3 (3.4):
    # the same lemma and its unaligned near miss at block 4 ("3-4", kept), every block size
    # in 2-d ("2-None", kept until session 32). Session 32: "2-None" (3.5-3.7 CPU s, a
    # symbolic block size; the prover states the lemmas for literal ones only) leaves too:
    # the 2-d lemmas at the literal block 12, no power of two ("2-12", 0.1), and "3-4" kept.
    # Sabotage: the alignment premise as a power-of-two mask (geometry.py, `aligned =
    # dims[-1] & (block_dim - 1) == 0`) -> "2-None", "2-12" and "3-4" fail
    "tests/proofs/test_geometry.py::test_same_block_facts_are_theorems_and_need_the_aligned_last_dim":
        frozenset({"3-3", "2-None"}),
    # Session 20: the claim mutation_set.FAST_BARREN rests on (8.3 CPU s: every mutant of
    # the directed generic kernel compiled, none compiles). The default run keeps the skip
    # itself (test_a_barren_source_is_a_fast_source_and_compiles_nothing); `-m slow`
    # compiles every mutant anyway, and its drop counts list these.
    "tests/cli/prove/test_mutation_barren.py::test_no_mutant_of_a_barren_source_compiles": None,
    # Session 20 (CPU s of this session's profiled default run, 2026-12-06, load 9-14): the
    # segment kernel's instances taking the contract its opaque proof proved under (8.3 of
    # the test's 20.1 before its near miss became a test of its own, which stays). `[...]`
    # of the same kernel proved under its suggested contract is the kept
    # test_a_type_oblivious_proof_its_share_cut_short_says_which_budget_and_claims_nothing's
    # second half; instances carrying the opaque proof's contract, failed as written with a
    # confirmed counterexample each, the kept
    # test_covered_instances_past_the_cap_are_unknown_as_written_and_proved_under_the_contract;
    # a CSR segment's all_sorted and all_in_range atoms, test_suggest_projects.py's kept
    # test_csr_segments_written_get_sorted_offsets
    "tests/cli/prove/test_type_oblivious.py::test_every_instance_takes_the_contract_the_opaque_proof_proved_under":
        None,
    # Session 21 (the coverage policy of tests/tiers.py, item 3; CPU s of this session's
    # profiled default run, 2026-12-06 `CI=true -n 2`, load 10-16): several C-library cases
    # of one rule. bitonic_sort (4.8) and matmul (2.1) through their C library equal the
    # simulator; shared memory, barriers and loops through the C library stay in the kept
    # block_reduce (0.8), scan (0.7) and transpose (1.3, tiled shared memory), and the C ops
    # only bitonic_sort reaches (min, max, ^) in tests/encoders/test_c_ops.py's
    # test_integer_and_bool_semantics_match_the_reference
    "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator":
        frozenset({"bitonic_sort", "matmul"}),
    # Session 21, as above: the generic segmented sum's opaque proof against every concrete
    # instantiation (2.2); the same rule stays on the kept neighbours (1.0, vector typings)
    # and scatter_add (0.6, every typing) cases, and the segmented sum's opaque proof itself,
    # every instance covered by it, in the kept
    # test_the_html_and_markdown_documents_say_what_the_type_oblivious_proof_covers
    "tests/cli/prove/test_type_oblivious.py::test_the_opaque_proof_proves_what_every_concrete_instantiation_proves":
        frozenset({"segment_sum"}),
    # Session 21, as above: the fake CUDA driver's corpus harness on ok_neighbor_matrix_padded
    # (2.7 of the 24 cases' 5.4); the other 23 proved kernels keep the packing and decoding
    # of every argument through the device path
    "tests/backends/cuda/test_cuda_fake_driver.py::test_corpus_harness_through_the_cuda_device_path":
        frozenset({"ok_neighbor_matrix_padded"}),
    # Session 22 (CPU s of this session's profiled default run, 2026-12-06 `CI=true -n 2`,
    # load 8-11): Warp's failing clang build of the int32-against-half comparison (3.1; a build
    # that fails is compiled again on every run). Warp refusing a half compared with another
    # scalar type ("build failed") is the kept "wp.float32" case (3.0), and verikern's located
    # refusal of the int32 case stays in the default run through
    # test_verikern_refuses_every_comparison_warp_cannot_build_at_its_site
    "tests/warp_compat/test_warp_mixed_compare.py::test_what_warp_cannot_build_is_a_located_error":
        frozenset({"wp.int32"}),
    # Session 23 (tests/tiers.py rule 5; CPU s of session 22's profiled default run, 2026-12-06
    # `CI=true -n 2`, load 8-11). Each entry's kept tests are NIGHTLY_KEPT's; "sabotage:" names
    # the one-line change to the product (not committed) under which a kept test was seen to fail.
    # 9.1: matmul proved five times with and without the term charges. Sabotage: no
    # charge_encoding in ProofContext (prover_context.py) -> the kept
    # test_total_spent_on.py::test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up fails
    "tests/proofs/test_kernel_total_term_charges.py::"
    "test_the_term_charges_are_counts_the_same_on_every_run_and_cut_a_proof_short": None,
    # 6.2: matmul proved five times with and without the query charges. Sabotage: no
    # charge_query in the session (session.py) -> the kept test_total_spent_on test above and
    # test_kernel_total.py::test_the_instances_of_a_generic_kernel_share_its_total_whatever_the_cache_holds fail
    "tests/proofs/test_kernel_total_charges.py::"
    "test_every_query_of_a_proof_is_charged_and_a_proof_the_charges_leave_short_is_unknown": None,
    # 2.9: matmul under a 2-million total, twice, and at the default. The kept tests go through
    # the same prove_file(kernel_budget=) and budget.kernel_total (read, not sabotaged): a total
    # spent before the proof (the reason's "budget exhausted after" wording) and
    # assert_cut_short_is_unknown's (unknown, nothing failed, at most the total: no floors on
    # top, the same twice) in test_total_spent_on's cut-short test
    "tests/proofs/test_kernel_total.py::test_a_spent_total_leaves_the_rest_unknown_with_which_budget_and_no_floor":
        None,
    # 11.4: the real CBMC on the prefix-offsets near miss with its loop. Sabotage: the invariant's
    # entry check dropped (encoders/c/loops.py asserts it on back edges only) -> the kept
    # test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed (the same near-miss kernel)
    # fails, and this test does not; a CBMC failure replayed: the kept
    # test_a_cbmc_counterexample_replays_on_the_simulator
    "tests/proofs/test_cbmc_loops.py::test_the_near_miss_still_fails_and_replays": None,
    # 10.4: the unguarded index through sqrt, failed under CBMC and replayed. Sabotage:
    # VK_UNMODELLED a constant (encoders/c/prelude.py) -> the kept test_c_golden cases fail
    # (this case does not); sqrt out of ops.UNMODELLED -> the kept guarded case fails
    "tests/proofs/test_cbmc_real.py::test_an_index_through_sqrt_is_decided": frozenset({"j >= 0"}),
    # Suggestion near misses (rule 3: one rule, several project kernels; 37 CPU s): a contract
    # suggested and claimed proved must refuse the bad launch. Sabotage (the two layers of the
    # claim): proofs/deciding/suggest.py `proved = True` and app/suggestion.py's re-proof
    # `proved = True` -> five kept near misses fail (NIGHTLY_KEPT), 0.3-1.4 CPU s each.
    # Session 26 reran it (suggest.py's two `proved =` and suggestion.py's, at cb2c72d): three
    # kept ones fail (prefix sum, asserted relation, neighbor matrix), pairs one past and an id
    # one past pass; of the eight below, loop over one atom too many, world read one past and
    # CSR writes one past fail, the other five pass: their searches claim nothing to cut, so
    # what they check (the search refusing every candidate) no kept test was seen to check
    # chunked scatter read one past (7.8), loop over one atom too many (2.4)
    "tests/proofs/test_suggest_indirect.py::"
    "test_a_chunked_scatter_read_one_past_gets_no_contract_admitting_the_bad_launch": None,
    "tests/proofs/test_suggest_indirect.py::"
    "test_a_loop_over_one_atom_too_many_gets_no_contract_admitting_the_bad_launch": None,
    # a guard letting every atom through (2.8)
    "tests/proofs/test_suggest_segment_heads.py::"
    "test_a_guard_letting_every_atom_through_gets_no_contract_admitting_sorted_runs": None,
    # a world read one past (4.3), CSR reads one past (3.6), CSR writes one past (2.7),
    # a run-length chunk read one past (8.8, in the fast tier until now)
    "tests/proofs/test_suggest_projects.py::test_a_world_read_one_past_gets_no_contract_admitting_the_bad_launch":
        None,
    "tests/proofs/test_suggest_projects.py::"
    "test_csr_reading_one_past_the_segment_gets_no_contract_admitting_the_bad_launch": None,
    "tests/proofs/test_suggest_projects.py::"
    "test_csr_segments_written_one_past_get_no_contract_admitting_the_bad_launch": None,
    "tests/proofs/test_suggest_projects.py::"
    "test_a_run_length_chunk_read_one_past_gets_no_contract_admitting_the_bad_launch": None,
    # a column past its stride (4.8)
    "tests/proofs/test_suggest_strides.py::"
    "test_a_column_past_its_stride_gets_no_contract_admitting_the_bad_launch": None,
    # 2.8: four instances searched and re-proved three times, with and without the reserve.
    # Sabotage: SUGGESTION_RESERVE = 0 (proofs/deciding/budget.py) -> the kept accounting tests
    # of the same file fail, as this one does
    "tests/proofs/test_suggestion_reserve.py::test_the_reserve_lets_a_starved_instance_re_prove_its_contract": None,
    # Session 24. matmul proved six times with and without the analysis and term charges.
    # Sabotage: budget._pending charging 0 units -> the kept
    # test_analysis_charges.py::test_noted_work_is_drained_into_the_next_charge_... fails
    "tests/proofs/test_analysis_charges.py::test_the_analysis_and_term_charges_are_counts_and_cut_a_proof_short": None,
    # Session 26 (issue 29 item 7; CPU s of `pytest -n 0 --cpu-costs` at main cb2c72d, 2026-12-06).
    # 16.6 (20.2 in session 25's default run): the segment kernel's eleven instances proved,
    # searched, the premise re-proved and the pasted file proved again. Sabotage:
    # premise_suggestion.suggest_premises's `if under:` made `if False:` (no (b') candidate)
    # -> the kept test_two_instances_get_the_one_proved_under_its_contract_as_the_premise (the
    # same kernel, int8 and float32 alone through the `kernel` filter, 1.5) fails, as this one
    # does. Left to this test alone: that the (b') premise comes before the typings that fail
    # spend the kernel's total (eleven instances share it)
    "tests/cli/prove/test_premise_proved_under_first.py::"
    "test_the_segment_kernel_gets_its_proved_under_typings_as_the_premise": None,
    # Session 32 (issue 29 item 7; CPU s of `pytest -n 0 --cpu-costs`, back to back, at main
    # fd93fab, 2026-12-07, load about 5). Each entry's kept tests are NIGHTLY_KEPT's; the
    # sabotage (one line of the product, run and reverted, not committed) failed them.
    # 4.8: the run-length kernel searched, re-proved and run. Its templates are searched and
    # proved on the chunked scatter (test_suggest_indirect, 4.7); the new template-layer test
    # ranks its candidates, refuses a wrapping launch and runs it against numpy (0.05).
    # Sabotage: contract_templates._thread_product_atoms `for c, name in ():` -> all three fail
    "tests/proofs/test_suggest_projects.py::test_a_run_length_chunk_per_thread_gets_a_launch_that_fits_int32": None,
    # 5.2: the per-system uphill kernel searched and proved. Kept: its template-layer test (0.01)
    # and the two searches of the same rules on segment heads (1.6, 2.2). Sabotage:
    # contract_templates._length_atoms's ids-range append made `pass` -> this test, the
    # first-atom search and the template test fail; the RACE branch's all_distinct over
    # `sorted(())` -> this test and the template test fail
    "tests/proofs/test_suggest_segment_heads.py::"
    "test_per_system_arrays_under_the_first_atom_guard_get_the_ids_range_not_the_launch": None,
    # 3.1: the 14-parameter kernel's joint premise of both precisions, pasted and proved. The
    # 5-parameter kernel takes the same joint-premise path and now asserts what only the
    # 14-parameter test did (0.9). Sabotage: premise_suggestion.premise_decorator `if joint:`
    # -> `if False:` -> both fail
    "tests/cli/prove/test_premise_one_precision.py::"
    "test_too_many_typings_get_the_joint_premise_of_both_precisions_and_the_pasted_kernel_is_proved": None,
    # 3.3: a length-walked segment searched and proved. Kept: the record-header search of the
    # same rule on the project's kernel (3.0) and the template-layer test of this kernel (0.01).
    # Sabotage: contract_templates._length_atoms `if idx in d.ends:` -> `if False:` -> all fail
    "tests/proofs/test_suggest_record_headers.py::test_a_segment_walked_by_its_length_gets_offsets_up_to_the_length":
        None,
    # 7.0: a CBMC bounds failure on every launch, found again under VK_SMALL and confirmed by
    # replay. Kept: the agreement case bounds_gather_range_off_by_one (2.1), a CBMC failure too
    # large to replay found again under VK_SMALL and confirmed, and the invariant obligation's
    # invariant_fails_entry_from_shared (1.6), confirmed and marked as CBMC's. Sabotage:
    # cbmc.py `if all(_replayable(o) ...)` -> `if True:` (no VK_SMALL run) -> the gather case
    # and this test fail
    "tests/proofs/test_cbmc_real.py::test_a_cbmc_counterexample_replays_on_the_simulator": None,
    # 2.4-3.0: a 4-d int32 flat index proved under an int64 contract. Kept: the facts of a
    # product and a chain as theorems (0.04) and a 3-factor chain proved on a kernel, the cube
    # of a bounded side (0.5). Sabotage: widened_products.py's `return self._product(e)` ->
    # `return None` (no twins through products) -> all three fail
    "tests/proofs/test_widened_products.py::test_a_4d_int32_flat_index_under_an_int64_contract_is_proved": None,
}

#: the five cheap suggestion near misses the default run keeps: each fails when the
#: suggestion's two layers (the search's proof, the pasted re-proof) are cut, as the
#: costly near misses moved beside them would (session 23's sabotage sab7)
_KEPT_SUGGESTION_NEAR_MISSES = (
    "tests/proofs/test_suggest_projects.py::test_pairs_indexing_one_past_get_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::test_a_prefix_sum_one_past_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_projects.py::"
    "test_an_asserted_relation_two_past_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_indirect.py::"
    "test_a_neighbor_matrix_read_at_the_padding_gets_no_contract_admitting_the_bad_launch",
    "tests/proofs/test_suggest_segment_heads.py::test_an_id_one_past_gets_no_contract_admitting_the_bad_launch",
)

#: NIGHTLY entry -> the default-run tests that make its check (the comment above each
#: entry says how), as "path::function" (every case the default run keeps) or
#: "path::function[id]" (the cases whose id is `id` or starts with `id-`, as NIGHTLY's
#: ids match). tests/test_repository.py checks that every NIGHTLY entry has kept tests
#: here, that each exists, and that the default run does not deselect it (not NIGHTLY
#: itself, and for a sampled sweep a case its sample always keeps). Session 23 (issue
#: 29 item 7, tests/tiers.py rule 5): the comments of the entries that session moved
#: name the sabotage each kept test was seen to fail under.
NIGHTLY_KEPT: dict[str, tuple[str, ...]] = {
    "tests/proofs/test_cbmc_real.py::test_dropping_a_contract_changes_cbmcs_answer": (
        "tests/proofs/test_cbmc_real.py::test_dropping_a_contract_changes_cbmcs_answer[gaps]",
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[ok_scatter_permutation.py]"),
    "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3": (
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[bounds_gather_range_off_by_one.py]",
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[ok_2d_guarded.py]",
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[ok_grid3d_fill_guarded.py]",
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[race_all_threads_write_slot0.py]",
        "tests/proofs/test_cbmc_real.py::test_an_int_min_by_minus_one_failure_names_the_overflow"),
    "tests/proofs/test_cbmc_invariant_obligation.py::test_cbmc_decides_the_invariant_obligation": (
        "tests/proofs/test_cbmc_invariant_obligation.py::test_cbmc_decides_the_invariant_obligation"
        "[invariant_fails_entry_from_shared.py]",),
    "tests/proofs/test_cbmc_loops.py::test_an_unbounded_loop_is_proved_through_its_invariant": (
        "tests/proofs/test_cbmc_loops.py::test_an_unbounded_loop_is_proved_through_its_invariant[fixed-launch]",
        "tests/proofs/test_cbmc_loops.py::test_checks_in_and_after_a_loop_over_a_parameter_are_proved"),
    "tests/proofs/reporting/test_report_html.py::test_the_examples_report_renders_in_headless_chromium": (
        "tests/proofs/reporting/test_report_html.py::test_html_renders_in_headless_chromium",
        "tests/proofs/reporting/test_report_html.py::test_html_has_every_section_marks_and_hashes",
        "tests/cli/prove/test_corpus_verdicts.py::test_example_is_proved"),
    "tests/cli/prove/test_determinism.py::"
    "test_reports_identical_across_hash_seeds_and_load_and_failures_across_job_counts": (
        "tests/cli/prove/test_counterexample_determinism.py::"
        "test_counterexamples_identical_across_hash_seeds_and_process_history",
        "tests/cli/prove/test_prove_cli.py::test_kernel_filter_and_folder_input"),
    "tests/encoders/test_c_addressing.py::test_address_shapes_match_numpy_in_c": (
        "tests/encoders/test_c_addressing.py::test_address_shapes_match_numpy_in_c[shared2d_cm_int32_0]",
        "tests/backends/simulator/test_sim_addressing.py::test_every_address_shape_matches_numpy"
        "[cpu:native-shared2d_cm_mat22_0]"),
    "tests/cli/prove/test_prove_differential.py::test_proved_obligations_hold_on_simulated_launches": (
        "tests/cli/prove/test_prove_differential.py::test_proved_obligations_hold_on_simulated_launches",),
    "tests/backends/native/test_native_semantics.py::test_every_op_matches_simulator": (
        "tests/mir/test_op_table.py::test_native_matches_reference",
        "tests/backends/native/test_native_semantics.py::test_every_op_matches_simulator[int32]"),
    "tests/backends/native/test_native_semantics.py::test_every_cast_matches_simulator": (
        "tests/backends/native/test_native_semantics.py::test_every_cast_matches_simulator[int32]",),
    "tests/cli/prove/test_work_determinism.py::"
    "test_every_query_costs_the_same_units_alone_in_another_order_and_with_two_jobs": (
        "tests/proofs/test_unit_determinism.py::test_a_proof_spends_the_same_units_on_every_query_after_other_work",
        "tests/proofs/test_unit_determinism.py::"
        "test_a_proof_spends_the_same_units_in_fresh_processes_under_other_hash_seeds",
        "tests/cli/prove/test_prove_cli.py::test_kernel_filter_and_folder_input"),
    "tests/proofs/test_cbmc_real.py::test_cbmc_is_bounded_by_work_not_by_the_machines_load": (
        "tests/proofs/test_cbmc_split.py::test_real_cbmc_decides_the_easy_obligations_beside_a_hard_one",
        "tests/proofs/test_cbmc.py::test_a_cbmc_run_out_of_units_is_unknown_and_says_why"),
    "tests/proofs/test_cbmc_loops.py::test_a_wrong_invariant_fails_cbmcs_check_and_proves_nothing": (
        "tests/proofs/test_cbmc_loops.py::test_a_wrong_invariant_fails_cbmcs_check_and_proves_nothing",
        "tests/proofs/test_cbmc_loops.py::test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed",
        "tests/proofs/test_cbmc_loops.py::test_an_unbounded_loop_is_proved_through_its_invariant[fixed-launch]"),
    "tests/cli/prove/test_mutation.py::test_allow_list_entries_are_generated_compiled_mutants_with_reasons": (
        "tests/cli/prove/test_mutation.py::test_fast_mutant_is_not_proved",
        "tests/cli/prove/test_mutation.py::test_every_kind_is_in_the_fast_set"),
    "tests/cli/prove/test_mutation.py::"
    "test_every_kind_is_in_the_fast_set_and_only_benign_candidates_are_dropped": (
        "tests/cli/prove/test_mutation.py::test_every_kind_is_in_the_fast_set",),
    "tests/proofs/test_geometry.py::test_same_block_facts_are_theorems_and_need_the_aligned_last_dim": (
        "tests/proofs/test_geometry.py::test_same_block_facts_are_theorems_and_need_the_aligned_last_dim[3-4]",
        "tests/proofs/test_geometry.py::test_same_block_facts_are_theorems_and_need_the_aligned_last_dim[2-12]"),
    "tests/cli/prove/test_mutation_barren.py::test_no_mutant_of_a_barren_source_compiles": (
        "tests/cli/prove/test_mutation_barren.py::test_a_barren_source_is_a_fast_source_and_compiles_nothing",),
    "tests/cli/prove/test_type_oblivious.py::test_every_instance_takes_the_contract_the_opaque_proof_proved_under": (
        "tests/cli/prove/test_type_oblivious.py::"
        "test_a_type_oblivious_proof_its_share_cut_short_says_which_budget_and_claims_nothing",
        "tests/cli/prove/test_type_oblivious.py::"
        "test_covered_instances_past_the_cap_are_unknown_as_written_and_proved_under_the_contract",
        "tests/proofs/test_suggest_projects.py::test_csr_segments_written_get_sorted_offsets"),
    "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator": (
        "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator[block_reduce]",
        "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator[scan]",
        "tests/artifact/test_build_examples.py::test_example_through_its_c_library_equals_the_simulator[transpose]",
        "tests/encoders/test_c_ops.py::test_integer_and_bool_semantics_match_the_reference"),
    "tests/cli/prove/test_type_oblivious.py::test_the_opaque_proof_proves_what_every_concrete_instantiation_proves": (
        "tests/cli/prove/test_type_oblivious.py::"
        "test_the_opaque_proof_proves_what_every_concrete_instantiation_proves[neighbours]",
        "tests/cli/prove/test_type_oblivious.py::"
        "test_the_opaque_proof_proves_what_every_concrete_instantiation_proves[scatter_add]",
        "tests/cli/prove/test_type_oblivious.py::"
        "test_the_html_and_markdown_documents_say_what_the_type_oblivious_proof_covers"),
    "tests/backends/cuda/test_cuda_fake_driver.py::test_corpus_harness_through_the_cuda_device_path": (
        "tests/backends/cuda/test_cuda_fake_driver.py::test_corpus_harness_through_the_cuda_device_path",),
    "tests/warp_compat/test_warp_mixed_compare.py::test_what_warp_cannot_build_is_a_located_error": (
        "tests/warp_compat/test_warp_mixed_compare.py::test_what_warp_cannot_build_is_a_located_error[wp.float32]",
        "tests/warp_compat/test_warp_mixed_compare.py::"
        "test_verikern_refuses_every_comparison_warp_cannot_build_at_its_site"),
    # session 23
    "tests/proofs/test_kernel_total_term_charges.py::"
    "test_the_term_charges_are_counts_the_same_on_every_run_and_cut_a_proof_short": (
        "tests/proofs/test_total_spent_on.py::test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up",
        "tests/proofs/test_kernel_total_term_charges.py::"
        "test_each_term_charge_is_its_count_times_its_units_and_at_most_what_is_left",
        "tests/proofs/test_kernel_total_term_charges.py::"
        "test_a_suggestion_the_term_charges_leave_short_is_never_proved_under"),
    "tests/proofs/test_kernel_total_charges.py::"
    "test_every_query_of_a_proof_is_charged_and_a_proof_the_charges_leave_short_is_unknown": (
        "tests/proofs/test_total_spent_on.py::test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up",
        "tests/proofs/test_kernel_total.py::test_the_instances_of_a_generic_kernel_share_its_total_whatever_the_cache_holds",
        "tests/proofs/test_kernel_total_charges.py::"
        "test_a_query_and_a_recompile_charge_the_total_in_progress_at_most_what_it_has_left"),
    "tests/proofs/test_kernel_total.py::test_a_spent_total_leaves_the_rest_unknown_with_which_budget_and_no_floor": (
        "tests/proofs/test_kernel_total.py::test_a_total_spent_before_the_proof_decides_nothing",
        "tests/proofs/test_total_spent_on.py::test_a_kernel_cut_short_says_what_spent_its_total_and_the_items_add_up"),
    "tests/proofs/test_cbmc_loops.py::test_the_near_miss_still_fails_and_replays": (
        "tests/proofs/test_cbmc_loops.py::test_an_invariant_that_would_hide_a_bug_is_refuted_not_assumed",
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[bounds_gather_range_off_by_one.py]",
        "tests/proofs/test_cbmc_invariant_obligation.py::test_cbmc_decides_the_invariant_obligation"
        "[invariant_fails_entry_from_shared.py]"),
    "tests/proofs/test_cbmc_real.py::test_an_index_through_sqrt_is_decided": (
        "tests/proofs/test_cbmc_real.py::test_an_index_through_sqrt_is_decided[j >= 0 and j < tab.shape[0]]",
        "tests/encoders/test_c_golden.py::test_c_golden"),
    "tests/proofs/test_suggest_indirect.py::"
    "test_a_chunked_scatter_read_one_past_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_indirect.py::"
    "test_a_loop_over_one_atom_too_many_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_segment_heads.py::"
    "test_a_guard_letting_every_atom_through_gets_no_contract_admitting_sorted_runs": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_projects.py::"
    "test_a_world_read_one_past_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_projects.py::"
    "test_csr_reading_one_past_the_segment_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_projects.py::"
    "test_csr_segments_written_one_past_get_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_projects.py::"
    "test_a_run_length_chunk_read_one_past_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggest_strides.py::"
    "test_a_column_past_its_stride_gets_no_contract_admitting_the_bad_launch": _KEPT_SUGGESTION_NEAR_MISSES,
    "tests/proofs/test_suggestion_reserve.py::test_the_reserve_lets_a_starved_instance_re_prove_its_contract": (
        "tests/proofs/test_suggestion_reserve.py::test_a_part_share_leaves_the_reserve_out_and_its_suggestion_blocks_draw_on_it",
        "tests/proofs/test_suggestion_reserve.py::test_the_held_reserve_is_part_of_the_cache_key_allowance"),
    # session 24
    "tests/proofs/test_analysis_charges.py::test_the_analysis_and_term_charges_are_counts_and_cut_a_proof_short": (
        "tests/proofs/test_analysis_charges.py::"
        "test_noted_work_is_drained_into_the_next_charge_by_kind_and_forgotten_outside_a_total",
        "tests/proofs/test_analysis_charges.py::test_a_near_miss_is_never_proved_whatever_the_total"),
    # session 26
    "tests/cli/prove/test_premise_proved_under_first.py::"
    "test_the_segment_kernel_gets_its_proved_under_typings_as_the_premise": (
        "tests/cli/prove/test_premise_proved_under_first.py::"
        "test_two_instances_get_the_one_proved_under_its_contract_as_the_premise",),
    # session 32
    "tests/proofs/test_suggest_projects.py::test_a_run_length_chunk_per_thread_gets_a_launch_that_fits_int32": (
        "tests/proofs/test_suggest_indirect.py::"
        "test_a_chunked_scatter_through_an_index_array_ties_no_length_to_the_launch",
        "tests/proofs/test_suggest_projects.py::"
        "test_a_run_length_chunks_reads_rank_the_int32_fit_first_and_that_contract_refuses_a_wrapping_launch"),
    "tests/proofs/test_suggest_segment_heads.py::"
    "test_per_system_arrays_under_the_first_atom_guard_get_the_ids_range_not_the_launch": (
        "tests/proofs/test_suggest_segment_heads.py::"
        "test_per_system_arrays_under_the_first_atom_guard_rank_the_ids_range_first",
        "tests/proofs/test_suggest_segment_heads.py::test_a_segments_first_atom_writing_gets_sorted_ids_in_range",
        "tests/proofs/test_suggest_segment_heads.py::"
        "test_a_value_every_atom_reads_while_the_first_writes_stays_a_race_under_sorted_ids"),
    "tests/cli/prove/test_premise_one_precision.py::"
    "test_too_many_typings_get_the_joint_premise_of_both_precisions_and_the_pasted_kernel_is_proved": (
        "tests/cli/prove/test_premise_one_precision.py::test_five_parameters_get_the_joint_premise_of_both_precisions_too",),
    "tests/proofs/test_suggest_record_headers.py::test_a_segment_walked_by_its_length_gets_offsets_up_to_the_length": (
        "tests/proofs/test_suggest_record_headers.py::"
        "test_records_after_headers_get_room_for_the_headers_and_the_ends",
        "tests/proofs/test_suggest_record_headers.py::"
        "test_a_segment_walked_by_its_length_ranks_the_range_one_past_first_and_sorted_offsets_for_its_race"),
    "tests/proofs/test_cbmc_real.py::test_a_cbmc_counterexample_replays_on_the_simulator": (
        "tests/proofs/test_cbmc_real.py::test_real_cbmc_decides_and_agrees_with_z3[bounds_gather_range_off_by_one.py]",
        "tests/proofs/test_cbmc_invariant_obligation.py::test_cbmc_decides_the_invariant_obligation"
        "[invariant_fails_entry_from_shared.py]"),
    "tests/proofs/test_widened_products.py::test_a_4d_int32_flat_index_under_an_int64_contract_is_proved": (
        "tests/proofs/test_widened_products.py::test_the_facts_of_a_product_and_a_chain_are_theorems",
        "tests/proofs/test_widened_products.py::test_a_cube_of_a_bounded_side_is_proved"),
}
