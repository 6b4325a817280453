// Tiled transpose through __local memory (TILE from the build options).
__kernel void transpose_tiled(__global const float* in, __global float* out, int width, int height) {
  __local float tile[TILE][TILE + 1];
  int gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;
  int lx = get_local_id(0), ly = get_local_id(1);
  tile[ly][lx] = in[(gy + ly) * width + gx + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(gx + ly) * height + gy + lx] = tile[lx][ly];
}
