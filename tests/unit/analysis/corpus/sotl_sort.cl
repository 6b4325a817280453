// SOTL sort (thesis Figure 3.12): the atomic's result places each atom, so the write regions
// come from the user's hints (evaluated on the cell array as it is before the kernel).
#define CELL_SIZE 1.0f
__kernel void sotl_sort(__global const float* pos, __global float* sorted_pos,
                        __global const float* speed, __global float* sorted_speed,
                        __global int* cells) {
  int gid = get_global_id(0);
  int cell_id = pos[gid] / CELL_SIZE;
  int shift = atomic_inc(&cells[cell_id]);
  sorted_pos[shift] = pos[gid];
  sorted_speed[shift] = speed[gid];
  int start_id = cells[cell_id - 2], end_id = cells[cell_id + 3] - 1;
  #pragma write sorted_pos [start_id:end_id]
  #pragma write sorted_speed [start_id:end_id]
  #pragma atomic cells[cell_id-2:cell_id+2]
  #pragma opencl_increasing_buffer pos, cells
}
