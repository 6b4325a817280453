// y = s * y + x over vectors of any length (64-bit indices): the workload whose buffers may be
// larger than one device can allocate (issue 20's experiment on the GPU machine).

__kernel void axpy(__global const float *x, __global float *y, float s, ulong n) {
  size_t i = get_global_id(0);
  if (i < n)
    y[i] = s * y[i] + x[i];
}
