// Two early returns: one before the read, one between the read and the write.
__kernel void early_return(__global const int* in, __global int* out, int n, int limit) {
  int i = get_global_id(0);
  if (i >= n) return;
  int v = in[i];
  if (i >= limit) return;
  out[i] = v * 2 + 1;
}
