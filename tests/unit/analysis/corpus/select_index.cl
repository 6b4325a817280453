// An index chosen by a select: either of two affine values.
__kernel void select_index(__global const float* in, __global float* out, int n, int mirror) {
  int i = get_global_id(0);
  int j = mirror ? n - 1 - i : i;
  out[i] = in[j];
}
