// Naive transpose: reads rows, writes columns.
__kernel void transpose(__global const float* in, __global float* out, int width, int height) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}
