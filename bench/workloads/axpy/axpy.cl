// y = s * y + x over vectors of any length (64-bit indices): the workload whose buffers may be
// larger than one device can allocate (issue 20's experiment on the GPU machine).

__kernel void axpy(__global const float *x, __global float *y, float s, ulong n) {
  size_t i = get_global_id(0);
  if (i < n)
    y[i] = s * y[i] + x[i];
}

// The same with x a table of `period` (a power of two) elements read at i mod period: one vector
// larger than a device allocates, with the table replicated (issue 20's GPU + CPU run, where host
// memory holds the program's vector and clsplit's copy of it, not two of each).
__kernel void axpy_periodic(__global const float *x, __global float *y, float s, ulong n, ulong mask) {
  size_t i = get_global_id(0);
  if (i < n)
    y[i] = s * y[i] + x[i & mask];
}
