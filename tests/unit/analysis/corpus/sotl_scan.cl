// SOTL scan: index of each cell's first atom (exclusive prefix sum, one cell per work-item).
__kernel void sotl_scan(__global const int* counts, __global int* cells, int ncells) {
  int c = get_global_id(0);
  if (c > ncells) return;
  int sum = 0;
  for (int k = 0; k < c; k++) sum += counts[k];
  cells[c] = sum;
}
