// Histogram with global atomics: the bin depends on the data, the updates commute.
__kernel void histogram(__global const uint* data, __global uint* bins, int n, uint nbins) {
  int i = get_global_id(0);
  if (i < n) atomic_inc(&bins[data[i] % nbins]);
}
