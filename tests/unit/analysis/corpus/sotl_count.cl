// SOTL count (thesis Figure 3.10): atoms per cell. Atoms moved at most one cell since they
// were sorted, so the cells touched by atoms L..U lie in [cell(L) - 2, cell(U) + 2].
#define CELL_SIZE 1.0f
__kernel void sotl_count(__global const float* pos, __global int* cells) {
  int gid = get_global_id(0);
  int cell_id = pos[gid] / CELL_SIZE;
  atomic_inc(&cells[cell_id]);
  #pragma atomic cells [cell_id-2:cell_id+2]
  #pragma opencl_increasing_buffer pos
}
