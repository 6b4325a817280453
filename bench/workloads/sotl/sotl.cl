// SOTL: Lennard-Jones particles with spatial binning (thesis section 3.2). Each step runs six
// kernels: reset, count, scan, copy, sort, force. Space is cut into cubic cells of side
// CELL_SIZE (= the cut-off radius) with one layer of empty ghost cells around the box; cell ids
// put x slowest and z fastest (thesis equation 3.2), so the atoms of cells c-1, c, c+1 along z
// are contiguous once sorted. The pragmas are the thesis' annotations (Figures 3.8, 3.10,
// 3.12) written for 3-D cells; compilers that do not know them ignore them.

#define CELL_SIZE 2.5f
#define INV_CELL_SIZE 0.4f
#define CUTOFF_SQUARED 6.25f
#define MIN_DISTANCE_SQUARED 0.64f
#define MAX_SPEED 500.0f
#define SCAN_ITEMS 256

// grid = (cells along x, y, z, unused), ghost layer excluded.
int cell_of(float4 p, int4 grid) {
  int cx = clamp((int)(p.x * INV_CELL_SIZE), 0, grid.x - 1) + 1;
  int cy = clamp((int)(p.y * INV_CELL_SIZE), 0, grid.y - 1) + 1;
  int cz = clamp((int)(p.z * INV_CELL_SIZE), 0, grid.z - 1) + 1;
  return (cx * (grid.y + 2) + cy) * (grid.z + 2) + cz;
}

// Lennard-Jones force divided by distance (sigma = epsilon = 1), shifted so that it vanishes
// at the cut-off; distances below MIN_DISTANCE are clamped so that forces stay finite.
float lj_force_over_r(float r2) {
  float s2 = 1.0f / max(r2, MIN_DISTANCE_SQUARED);
  float s6 = s2 * s2 * s2;
  float c2 = 1.0f / CUTOFF_SQUARED;
  float c6 = c2 * c2 * c2;
  return 24.0f * s2 * s6 * (2.0f * s6 - 1.0f) - 24.0f * c2 * c6 * (2.0f * c6 - 1.0f);
}

__kernel void reset(__global int *cells, int ncells) {
  int i = get_global_id(0);
  if (i <= ncells)
    cells[i] = 0;
}

__kernel void count(__global const float4 *pos, __global int *cells, int natoms, int4 grid) {
  int gid = get_global_id(0);
  if (gid < natoms) {
    // Get cell index of current atom
    int cell_id = cell_of(pos[gid], grid);

    // Increment the number of atoms in the cell
    atomic_inc(&cells[cell_id]);

    // User hint: atoms move by at most one cell per axis and step and were sorted by cell at
    // the previous step, so the cells touched by atoms [L, U] lie in
    // [cell_id(L) - 2D, cell_id(U) + 2D], D being the largest cell-id change of one move.
    int D = (grid.y + 2) * (grid.z + 2) + (grid.z + 2) + 1;
#pragma atomic cells[cell_id - 2 * D : cell_id + 2 * D]
  }
}

// Exclusive prefix sum of cells[0 .. ncells] by one work-group of SCAN_ITEMS items, each
// scanning a contiguous chunk; afterwards cells[c] is the index of the first atom of cell c
// and cells[ncells] the number of atoms.
__kernel void scan(__global int *cells, int ncells) {
  __local int partial[SCAN_ITEMS];
  int lid = get_local_id(0);
  int n = ncells + 1;
  int chunk = (n + SCAN_ITEMS - 1) / SCAN_ITEMS;
  int begin = min(lid * chunk, n);
  int end = min(begin + chunk, n);
  int sum = 0;
  for (int i = begin; i < end; i++)
    sum += cells[i];
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    int running = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) {
      int v = partial[k];
      partial[k] = running;
      running += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int running = partial[lid];
  for (int i = begin; i < end; i++) {
    int v = cells[i];
    cells[i] = running;
    running += v;
  }
}

// Backup of the cell starts: sort consumes its copy as insertion cursors.
__kernel void copy(__global const int *cells, __global int *cursor, int ncells) {
  int i = get_global_id(0);
  if (i <= ncells)
    cursor[i] = cells[i];
}

__kernel void sort(__global const float4 *pos, __global float4 *sorted_pos,
                   __global const float4 *speed, __global float4 *sorted_speed,
                   __global int *cells, int natoms, int4 grid) {
  int gid = get_global_id(0);
  if (gid < natoms) {
    // Get cell index of current atom
    int cell_id = cell_of(pos[gid], grid);

    // Get index of the next free slot in the cell
    int shift = atomic_inc(&cells[cell_id]);

    // Copy atom position and speed to the right cell of the sorted buffers
    sorted_pos[shift] = pos[gid];
    sorted_speed[shift] = speed[gid];

    // User hints (see count): atoms [L, U] land between the starts of cells
    // cell_id(L) - 2D and cell_id(U) + 2D + 1.
    int D = (grid.y + 2) * (grid.z + 2) + (grid.z + 2) + 1;
    int ncells = (grid.x + 2) * (grid.y + 2) * (grid.z + 2);
    int start_id = cells[max(cell_id - 2 * D, 0)];
    int end_id = cells[min(cell_id + 2 * D + 1, ncells)] - 1;
#pragma write sorted_pos[start_id:end_id]
#pragma write sorted_speed[start_id:end_id]
#pragma atomic cells[cell_id - 2 * D : cell_id + 2 * D]
  }
}

__kernel void force(__global const float4 *sorted_pos, __global float4 *pos,
                    __global const float4 *sorted_speed, __global float4 *speed,
                    __global const int *cells, int natoms, int4 grid, float4 box, float dt) {
  int gid = get_global_id(0);
  if (gid < natoms) {
    float4 current_pos = sorted_pos[gid];

    // Get cell id of current atom
    int cell_id = cell_of(current_pos, grid);

    // Iterate through the 27 neighbour cells (9 runs of 3 consecutive cells along z) to
    // compute the forces applied on the current atom
    float4 force_total = (float4)(0.0f);
    int stride_y = grid.z + 2;
    int stride_x = (grid.y + 2) * stride_y;
    for (int dx = -1; dx <= 1; dx++) {
      for (int dy = -1; dy <= 1; dy++) {
        int row = cell_id + dx * stride_x + dy * stride_y;
        for (int i = cells[row - 1]; i < cells[row + 2]; i++) {
          float4 d = current_pos - sorted_pos[i];
          d.w = 0.0f;
          float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
          if (i != gid && r2 < CUTOFF_SQUARED)
            force_total += d * lj_force_over_r(r2);
        }
      }
    }

    // Update speed (unit mass), bounded so that no atom crosses more than one cell per step
    float4 v = sorted_speed[gid] + force_total * dt;
    v = clamp(v, -MAX_SPEED, MAX_SPEED);

    // Update position; the box walls reflect
    float4 p = current_pos + v * dt;
    if (p.x < 0.0f) { p.x = -p.x; v.x = -v.x; }
    if (p.y < 0.0f) { p.y = -p.y; v.y = -v.y; }
    if (p.z < 0.0f) { p.z = -p.z; v.z = -v.z; }
    if (p.x >= box.x) { p.x = 2.0f * box.x - p.x; v.x = -v.x; }
    if (p.y >= box.y) { p.y = 2.0f * box.y - p.y; v.y = -v.y; }
    if (p.z >= box.z) { p.z = 2.0f * box.z - p.z; v.z = -v.z; }
    p.w = current_pos.w;

    speed[gid] = v;
    pos[gid] = p;

    // Safe indirections: sorted by cell, so cell ids read through sorted_pos and the cell
    // starts in cells never decrease with the index
#pragma opencl_increasing_buffer sorted_pos, cells
  }
}
