// SOTL copy: backup of the cell array before sort consumes it.
__kernel void sotl_copy(__global const int* cells, __global int* backup) {
  int c = get_global_id(0);
  backup[c] = cells[c];
}
