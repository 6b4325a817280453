// SOTL force (thesis Figure 3.8): interactions with the atoms of the neighbouring cells,
// found through the sorted positions and the cell array (both increasing).
#define CELL_SIZE 1.0f
#define CUTOFF2 4.0f
#define DELTA_T 0.01f
__kernel void sotl_force(__global const float* sorted_pos, __global float* pos,
                         __global const float* sorted_speed, __global float* speed,
                         __global const int* cells) {
  int gid = get_global_id(0);
  float current_pos = sorted_pos[gid];
  int cell_id = current_pos / CELL_SIZE;
  float force_total = 0;
  for (int i = cells[cell_id - 1]; i < cells[cell_id + 2]; i++) {
    float d = sorted_pos[i] - current_pos;
    float dist2 = d * d;
    if (dist2 < CUTOFF2) force_total += d * (CUTOFF2 - dist2);
  }
  speed[gid] = sorted_speed[gid] + force_total;
  pos[gid] = current_pos + speed[gid] * DELTA_T;
  #pragma opencl_increasing_buffer sorted_pos, cells
}
