// Pointer arithmetic through helper functions (inlined by the analysis).
static float pair_sum(__global const float* p, int i) { return p[i] + p[i + 1]; }
static void store_scaled(__global float* q, int i, float v) { q[i] = 2.0f * v; }
static __global const float* skip(__global const float* p, int n) { return p + n; }
__kernel void helpers(__global const float* in, __global float* out) {
  int i = get_global_id(0);
  store_scaled(out, i, pair_sum(skip(in, 4), 2 * i));
}
