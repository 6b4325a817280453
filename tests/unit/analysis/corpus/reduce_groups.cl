// Per-group partial sums written at get_group_id: needs the partition-ready group ids.
#define LWS 16
__kernel void reduce_groups(__global const float* in, __global float* partial) {
  __local float scratch[LWS];
  int lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = LWS / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
