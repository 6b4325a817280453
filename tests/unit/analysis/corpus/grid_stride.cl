// Grid-stride loop: each work-item handles i, i + global size, ... (the original NDRange's size).
__kernel void grid_stride(__global const float* in, __global float* out, int n) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = 2.0f * in[i];
}
