// Nested loops whose inner trip count depends on the outer induction variable.
__kernel void triangular(__global const float* L, __global float* out, int n) {
  int b = get_global_id(0);
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) s += L[b * n * n + i * n + j];
  out[b] = s;
}
