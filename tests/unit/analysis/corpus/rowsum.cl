// A loop over one row per work-item.
__kernel void rowsum(__global const float* A, __global float* sums, int m) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int j = 0; j < m; j++) s += A[i * m + j];
  sums[i] = s;
}
