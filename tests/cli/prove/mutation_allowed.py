"""Mutants that are still correct kernels (memory-safe, race-free,
divergence-free: every obligation holds), so PROVED is the right answer
for them; each entry was reviewed by reading the mutant against its source.

ALLOWED entries were reviewed from runs of the fast set, ALLOWED_FULL entries
from a run of the full set (2026-12-01); each is proved again whenever the
set that holds its mutant runs (most are in `full`, `pytest -m slow`), and
an entry must go once its mutant is no longer PROVED or no longer generated
(tests/cli/prove/test_mutation.py).
"""
from __future__ import annotations

# (file stem, mutant ident) -> why the mutant is still a correct kernel.
ALLOWED: dict[tuple[str, str], str] = {
    ("ok_offset_wraps_after_loop_guarded", "guard-bound@11:20"):
        "one more step (range(steps + 1)) only moves the offset further: the store is still "
        "guarded by 0 <= s < x.shape[0], so no out-of-bounds access, and only thread 0 writes",
    ("ok_csr_edge_scale_sorted", "index-shift@15:32"):
        "range(offsets[v + 1], offsets[v + 1]) is empty: the loop never runs, so no access",
    ("ok_union_find_pointer_jump", "guard-bound@13:23"):
        "a ninth pointer-jumping step is as safe as the eighth: every store writes a value "
        "read from parent, so all_in_range(parent, 0, n) still holds throughout",
    ("block_reduce", "drop-requires@17:5"):
        "the requires only asks for a power-of-two block_dim, which the SUM needs; memory "
        "safety does not: threads t < s read buf[t + s] < 2*s <= block_dim <= 1024 and write "
        "buf[t], disjoint index ranges, with a barrier after every halving step",
    ("ok_swap_pairs_no_overflow", "index-shift@10:15"):
        "t = x[2 * i + 1] reads the thread's own odd element, in bounds under the guard "
        "i < x.shape[0] // 2; a wrong swap, but no out-of-bounds access and no race",
    ("ok_vec3_cross_next_guarded", "index-shift@11:13"):
        "out[i + 1] is in bounds under the guard i + 1 < v.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
    ("ok_barrier_block_uniform_branch", "drop-requires@8:5"):
        "without out.shape[0] == x.shape[0] each global access is still guarded by its own "
        "array's shape (i < x.shape[0], i < out.shape[0]); the requires only makes the copy whole",
    ("ok_loop_never_runs_read_past_end", "drop-requires@8:5"):
        "x is read only inside `for q in range(0)`, a loop that never runs: without "
        "x.shape[0] >= 1 no access and no modulo by x.shape[0] ever happens",
    ("ok_loop_never_runs_read_past_end", "div-guard@8:17"):
        "the modulo by x.shape[0] that the dropped x.shape[0] >= 1 guarded sits inside "
        "`for q in range(0)`, which never runs: no division happens",
    ("ok_shared_tile_rows_loop_init", "drop-requires@8:5"):
        "without out.shape[0] == x.shape[0] each global access is still guarded by its own "
        "array's shape (i < x.shape[0] for the read, i < out.shape[0] for the write); the "
        "shared tile is indexed by loop counters below 4 and thread_idx below block_dim=32",
    ("ray_triangle", "guard-bound@21:22"):
        "the guard vk.abs(det) > EPS_DET only protects the float division 1.0 / det (a float "
        "division by zero is no obligation); every array access is in intersect, guarded by i < n",
    ("ray_triangle", "lt-to-le@21:8"):
        "vk.abs(det) >= EPS_DET guards only the float division 1.0 / det (no obligation); the "
        "kernel's accesses are guarded by i < origins.shape[0] and the shape requires",
    ("ok_2d_stencil_5pt_halo", "index-shift@11:13"):
        "out[i + 1, j] is in bounds under the guard i + 1 < a.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
    ("ok_barrier_after_divergent_branch", "drop-requires@8:5"):
        "x[i] and out[i] are each guarded by their own array's shape, and the shared buffer is "
        "indexed by t and t ^ 1 < 64 = block_dim; the requires only makes the exchange whole",
    ("ok_shared_prove_args_block_dim", "drop-requires@9:5"):
        "x[i] and out[i] are each guarded by their own array's shape, and buf[t], buf[127 - t] "
        "stay in 0..127 under --block-dim 128; the requires only makes the reversal whole",
    ("transpose", "drop-requires@19:5"):
        "without out.shape == a.shape transposed, a[row, col] and out[orow, ocol] are each "
        "guarded by their own array's shape, the tile is indexed by ty + k, tx < 32 and fully "
        "written before the barrier, and distinct threads write distinct out elements; only "
        "the transpose is incomplete (proved since the different-block geometry fact)",
    ("ok_offset_wraps_after_loop_guarded", "drop-requires@8:5"):
        "without base >= 0 and steps >= 0 the offset may start negative or the loop not run, "
        "but the store is still guarded by 0 <= s < x.shape[0], and only thread 0 writes",
    ("ok_shared_uniform_flag_init", "drop-requires@8:5"):
        "x[i] and out[i] are each guarded by their own array's shape, and buf is indexed by t "
        "and (t + 1) % 64 < 64 = block_dim, written before the barrier under the same uniform "
        "flag; the requires only makes the copy whole",
    ("ok_stencil_halo_guard", "index-shift@11:13"):
        "out[i + 1] is in bounds under the guard i + 1 < x.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
    ("ok_packed_rows_per_group", "index-shift@14:32"):
        "ext[atom_i + 2 * s + 1] is still in bounds: the largest index is (n - 1) + 2 * (groups - 1) "
        "+ 1 = n + 2 * groups - 2 < ext.shape[0] under the room contract (two spare rows for the "
        "last group); a wrong row read, but memory-safe, and ext is only read",
}

# why -> the "file stem:mutant ident" entries it covers
_FULL_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("a loop exit test weakened to admit 0 (`j > 0` -> `j >= 0`, `s > 0` -> `s > -1`) makes "
     "the halving loop endless at 0, where `t ^ 0 == t` / `t < 0` makes no access and the "
     "barrier stays uniform; verikern proves memory safety, not termination",
     ("ok_bitonic_sort_block:guard-bound@19:19", "ok_bitonic_sort_block:lt-to-le@19:15",
      "block_reduce:guard-bound@27:15", "block_reduce:lt-to-le@27:11",
      "ok_reduce_tree:guard-bound@17:15", "ok_reduce_tree:lt-to-le@17:11")),
    ("one more loop iteration whose accesses are still guarded, or inactive (`t >= offset` "
     "with offset = block size, `idx + stride < 128` with stride 128, `k < x.shape[0]`), with "
     "uniform barriers; k <= block_dim + 1 runs the same powers of two (for block_dim 1 it "
     "reads buf[1] < MAX_BLOCK and no other thread exists)",
     ("ok_bitonic_sort_block:guard-bound@17:16",
      "ok_loop_barrier_uniform_trip_count:guard-bound@17:20", "ok_odd_even_sort_block:guard-bound@16:24",
      "ok_range_step_bounded_length:guard-bound@12:31", "ok_reduce_interleaved:guard-bound@17:20",
      "ok_reduce_interleaved:lt-to-le@17:11", "ok_scan_hillis_steele_double_buffer:guard-bound@19:20",
      "ok_scan_hillis_steele_double_buffer:lt-to-le@19:11", "ok_scan_in_place_two_barriers:guard-bound@18:20",
      "ok_scan_in_place_two_barriers:lt-to-le@18:11", "scan:guard-bound@33:23")),
    ("the weakened comparison admits no value the code can reach: p == t needs j == 0, which "
     "`while j > 0` excludes; stride * (2t + 1) == 128 needs stride == 128, which `stride < 128` "
     "excludes; j = uint32(i) - 1 is <= n - 2 or 2**32 - 1, never n; `a >= b` only swaps equal "
     "values, through the accesses the swap already makes",
     ("ok_bitonic_sort_block:guard-bound@21:20", "ok_bitonic_sort_block:lt-to-le@21:16",
      "ok_reduce_interleaved:guard-bound@19:27", "ok_reduce_interleaved:lt-to-le@19:12",
      "ok_uint_underflow_guarded:guard-bound@13:16", "ok_uint_underflow_guarded:lt-to-le@13:12",
      "ok_odd_even_sort_block:guard-bound@20:20", "ok_odd_even_sort_block:lt-to-le@20:16")),
    ("a float comparison that guards no obligation (a float division by zero is none; every "
     "array access has its own integer guard)",
     ("ok_atomic_counter_global:guard-bound@10:19", "ok_atomic_counter_global:lt-to-le@10:12",
      "ok_atomic_shared_counter:guard-bound@15:19", "ok_atomic_shared_counter:lt-to-le@15:12",
      "ray_triangle:guard-bound@25:17", "ray_triangle:guard-bound@25:30",
      "ray_triangle:guard-bound@28:21", "ray_triangle:guard-bound@28:38",
      "ray_triangle:guard-bound@30:24", "ray_triangle:lt-to-le@30:20")),
    ("the dropped requires relates output and input shapes, but every global access is "
     "guarded by its own array's shape and shared indices are bounded by the block size; "
     "only the result is incomplete",
     ("matmul:drop-requires@24:5", "ok_matmul_tiled:drop-requires@11:5",
      "ok_shared_tile_row_constant_row_read:drop-requires@8:5",
      "ok_shared_vec3_element_after_barrier:drop-requires@8:5",
      "ok_shared_vec3_tile_rows_column_major:drop-requires@8:5",
      "ok_shared_block_dim_at_most:drop-requires@9:5",
      "ok_shared_reverse_requires_block_dim:drop-requires@9:5")),
    ("a read shifted by one stays inside the halo guard (i >= 1, i + 1 < n, j likewise) or "
     "the guard that already covers i + 1; reads race with no write",
     ("ok_2d_stencil_5pt_halo:index-shift@11:16", "ok_2d_stencil_5pt_halo:index-shift@11:30",
      "ok_2d_stencil_5pt_halo:index-shift@11:44", "ok_2d_stencil_5pt_halo:index-shift@11:51",
      "ok_2d_stencil_5pt_halo:index-shift@11:65", "ok_2d_stencil_5pt_halo:index-shift@11:85",
      "ok_2d_stencil_5pt_halo:index-shift@11:88", "ok_stencil_halo_guard:index-shift@11:32",
      "ok_vec3_cross_next_guarded:index-shift@11:29", "ok_uint_underflow_guarded:index-shift@14:23",
      "ok_swap_pairs_no_overflow:index-shift@11:11")),
    ("a shared index shifted by one stays in bounds (t - offset + 1 <= t under t >= offset; "
     "the 33rd padding column of a 32x33 tile; t + 1 < 64 under the pair guard; idx + 1 <= "
     "idx + stride < 128) and the threads still touch distinct elements between barriers "
     "(writes 2*stride*t + 1 are odd, every other access even; a thread's pair is its own)",
     ("ok_scan_hillis_steele_double_buffer:index-shift@23:34", "ok_scan_in_place_two_barriers:index-shift@21:29",
      "scan:index-shift@39:34",
      "ok_odd_even_sort_block:index-shift@18:21", "ok_odd_even_sort_block:index-shift@21:21",
      "ok_reduce_interleaved:index-shift@20:17", "ok_reduce_interleaved:index-shift@20:28")),
)
_FULL_GROUPS += (
    # reviewed from the full set of 2026-12-04 (the corpus kernels added since 12-01)
    ("a read shifted by one stays inside the interior guard of a 7-point stencil (1 <= i, j, k "
     "and each below its shape minus one), so i + 1, j + 1, k + 1 are in bounds; reads only",
     tuple(f"ok_grid3d_exact_launch_laplacian:index-shift@{site}" for site in (
         "12:22", "12:25", "12:39", "12:42", "12:49", "12:59", "12:66", "12:76", "12:83", "12:86",
         "12:100", "12:103", "13:36", "13:39", "13:42"))),
    ("the halo loads run only in thread 0 (i a multiple of 64, so i > 0 means i >= 64 and "
     "i - 2 >= 62) and thread 63 (i + 1 < n with n a multiple of 64 means i + 2 < n); the "
     "shared reads sh[t + 1], sh[t + 2] stay below 66 and read elements written before the barrier",
     ("ok_stencil_halo_zero_padded:index-shift@17:22", "ok_stencil_halo_zero_padded:index-shift@22:23",
      "ok_stencil_halo_zero_padded:index-shift@25:12", "ok_stencil_halo_zero_padded:index-shift@25:20")),
    ("the mutated requires or guard is implied by the others: f.shape[0] == width * height >= 0 "
     "with one side negative leaves no thread past `y < height and x < width`; "
     "all_in_range(tail, 0, queue.shape[0] - launch_dim + 1) is unsatisfiable unless "
     "queue.shape[0] >= launch_dim; i < x.shape[0] + 1 (or <=) under x.shape[0] == launch_dim "
     "admits no more threads; the case's --dim 256 is one block of 256, so grid_dim() == 1 holds",
     ("ok_image_flat_int64_index:drop-requires@8:5", "ok_queue_append_atomic_tail:drop-requires@11:5",
      "ok_compact_atomic_ticket:guard-bound@14:12", "ok_compact_atomic_ticket:lt-to-le@14:8",
      "ok_union_find_pointer_jump:drop-requires@10:5")),
    ("more threads take a ticket (v > -1.0, v >= 0.0), but the tickets are distinct and fewer "
     "than the threads, which out.shape[0] >= x.shape[0] == launch_dim covers",
     ("ok_compact_atomic_ticket:guard-bound@16:16", "ok_compact_atomic_ticket:lt-to-le@16:12")),
    ("block_dim is 64, 128 or 256, so bd >= 255 and bd >= 127 are bd >= 256 and bd >= 128; "
     "without the last barrier thread 0 reads buf[0], its own write, and no thread writes "
     "what another reads in that phase",
     ("ok_reduce6_block_dim_ladder:guard-bound@18:14", "ok_reduce6_block_dim_ladder:guard-bound@22:14",
      "ok_reduce6_block_dim_ladder:drop-barrier@28:5")),
    ("the shifted read sits inside `for q in range(0)`, which never runs",
     ("ok_loop_never_runs_read_past_end:index-shift@12:15",)),
    ("one more k0 step (range stop kdim + 1) loads only under k0 + tx < kdim and "
     "k0 + ty < kdim, zero otherwise, with the same uniform barriers",
     ("matmul:guard-bound@37:24",)),
    ("start = offsets[i + 1] makes point_count = offsets[i + 1] - start = 0: the copy loop "
     "never runs, and offsets[i + 1] is in bounds under vk.launch_dim() < offsets.shape[0]",
     ("ok_csr_records_after_headers:index-shift@14:21",)),
    ("source_offsets[face_idx + 1] in place of source_offsets[face_idx] is the read the line "
     "already makes, in bounds under all_in_range(face_locations, 0, source_offsets.shape[0] - 1); "
     "a zero count, but memory-safe, and source_offsets is only read",
     ("ok_csr_end_of_listed_id:index-shift@13:66",)),
    # session 32 (2026-12-07, reviewed from the full set's run at 513b19d)
    ("a redundant guard: `int(np.pi) <= a.shape[0] - i` alone keeps i + 2 < a.shape[0], so "
     "`i <= a.shape[0]`, `i < a.shape[0] + 1` and the reads a[i + 1], a[i + 2] in place of a[i], "
     "a[i + 1] stay in bounds; each thread writes only out[i]",
     ("ok_numpy_pi_stencil_width:guard-bound@11:16", "ok_numpy_pi_stencil_width:lt-to-le@11:12",
      "ok_numpy_pi_stencil_width:index-shift@12:25", "ok_numpy_pi_stencil_width:index-shift@12:32")),
    ("offsets[i + 1] read in place of offsets[i] is the element the line writes, in bounds under "
     "counts.shape[0] < offsets.shape[0]; one thread (t == 0) writes, so no race",
     ("ok_prefix_offsets_one_thread:index-shift@14:38",)),
    ("offsets[c.cell + 1] is offsets[i + 1], the read offsets[c.after] already makes, in bounds "
     "under offsets.shape[0] == kinds.shape[0] + 1",
     ("ok_struct_ctor_face_cursor:index-shift@32:44",)),
    ("without x.shape[0] == vk.launch_dim() only threads with i < x.shape[0] take a ticket from "
     "a counter that starts at 0 (all_in_range(count, 0, 1)), so every slot is below "
     "x.shape[0] <= out.shape[0] and the tickets are distinct",
     ("ok_compact_atomic_ticket:drop-requires@10:5",)),
    ("the guard is in the Masses overload of `load`, which the kernel never calls (its struct is "
     "Charges): dead code",
     ("ok_struct_generic_overloaded_loads:guard-bound@28:12",)),
    ("the weakened test only decides whether b steps back by one, and only when b > 0: "
     "block_starts[b - 1] is in bounds as block_starts[b] is (wp.lower_bound returns at most "
     "the array's length - 1)",
     ("ok_struct_held_arrays_field_untouched:guard-bound@26:29",
      "ok_struct_held_arrays_field_untouched:lt-to-le@26:22")),
    ("a float comparison that guards no obligation: it only picks which matrix is returned",
     ("ok_type_of_call_outer_zero:guard-bound@9:12",)),
)
ALLOWED_FULL: dict[tuple[str, str], str] = {
    tuple(entry.split(":", 1)): why for why, entries in _FULL_GROUPS for entry in entries}
