// Work-group tree reduction in __local memory, one atomic add per group into a single total.
__kernel void reduce_atomic(__global const int* in, __global int* total, __local int* scratch) {
  int lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) atomic_add(total, scratch[0]);
}
