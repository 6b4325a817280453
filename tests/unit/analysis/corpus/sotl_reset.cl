// SOTL (thesis 3.2) reset: clears the per-cell counters.
__kernel void sotl_reset(__global int* cells, int ncells) {
  int c = get_global_id(0);
  if (c <= ncells) cells[c] = 0;
}
