// A pointer induction variable walking a row with a stride.
__kernel void pointer_walk(__global const float* in, __global float* out, int cols, int step) {
  int r = get_global_id(0);
  __global const float* p = in + r * cols;
  __global const float* end = p + cols;
  float s = 0.0f;
  for (; p < end; p += step) s += *p;
  out[r] = s;
}
