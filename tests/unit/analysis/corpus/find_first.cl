// A search loop with a data-dependent exit (several loop exits).
__kernel void find_first(__global const int* rows, __global int* pos, int m) {
  int r = get_global_id(0);
  int j = 0;
  while (j < m && rows[r * m + j] != 0) j++;
  pos[r] = j;
}
