// Strided reads: every stride-th element.
__kernel void strided(__global const float* in, __global float* out, int stride) {
  int i = get_global_id(0);
  out[i] = in[i * stride];
}
