// Data-dependent reads: the read region falls back to the whole buffer; writes are exact.
__kernel void gather(__global const int* idx, __global const float* val, __global float* out) {
  int i = get_global_id(0);
  out[i] = val[idx[i]];
}
