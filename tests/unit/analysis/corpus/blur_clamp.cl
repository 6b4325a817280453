// Clamp-to-edge neighbours through min/max.
__kernel void blur_clamp(__global const float* in, __global float* out, int n) {
  int i = get_global_id(0);
  int l = max(i - 1, 0), r = min(i + 1, n - 1);
  out[i] = (in[l] + in[i] + in[r]) / 3.0f;
}
