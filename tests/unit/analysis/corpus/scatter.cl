// Data-dependent writes without a hint: the write region is unknown, so the kernel must not
// be split (the analysis says why).
__kernel void scatter(__global const int* idx, __global const float* val, __global float* out) {
  int i = get_global_id(0);
  out[idx[i]] = val[i];
}
