// EP-like Monte-Carlo (after NPB EP): every work-item draws pairs_per_item pairs of uniform
// numbers from a counter-based generator, turns those inside the unit disc into Gaussian
// pairs (Marsaglia polar method), sums them and counts them per square annulus. Each
// work-group reduces its items in local memory and adds its totals to its own slot of the
// output, so iterations accumulate. Compute-bound, no communication.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NQ 10

ulong splitmix64(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

double unit_interval(ulong bits) { return (double)(bits >> 11) * (1.0 / 9007199254740992.0); }

__kernel void ep(__global double *sums, __global uint *counts, ulong seed, int pairs_per_item,
                 int iteration, __local double *local_sx, __local double *local_sy,
                 __local uint *local_q) {
  size_t gid = get_global_id(0);
  size_t lid = get_local_id(0);
  size_t lsize = get_local_size(0);
  size_t group = get_group_id(0);

  ulong first = ((ulong)iteration * get_global_size(0) + gid) * (ulong)pairs_per_item;
  double sx = 0.0, sy = 0.0;
  uint q[NQ];
  for (int l = 0; l < NQ; l++)
    q[l] = 0;
  for (int k = 0; k < pairs_per_item; k++) {
    ulong counter = (first + k) * 2;
    double x = 2.0 * unit_interval(splitmix64(seed + counter)) - 1.0;
    double y = 2.0 * unit_interval(splitmix64(seed + counter + 1)) - 1.0;
    double t = x * x + y * y;
    if (t <= 1.0 && t > 0.0) {
      double f = sqrt(-2.0 * log(t) / t);
      double gx = x * f;
      double gy = y * f;
      int l = (int)fmax(fabs(gx), fabs(gy));
      if (l < NQ)
        q[l]++;
      sx += gx;
      sy += gy;
    }
  }

  local_sx[lid] = sx;
  local_sy[lid] = sy;
  for (int l = 0; l < NQ; l++)
    local_q[l * lsize + lid] = q[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = lsize / 2; stride > 0; stride /= 2) {
    if (lid < stride) {
      local_sx[lid] += local_sx[lid + stride];
      local_sy[lid] += local_sy[lid + stride];
      for (int l = 0; l < NQ; l++)
        local_q[l * lsize + lid] += local_q[l * lsize + lid + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    sums[2 * group] += local_sx[0];
    sums[2 * group + 1] += local_sy[0];
    for (int l = 0; l < NQ; l++)
      counts[NQ * group + l] += local_q[l * lsize];
  }
}
