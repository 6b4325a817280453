// Thesis Figure 2.11: five-point stencil, rows along dimension 1, columns along dimension 0.
__kernel void stencil2d(__global const float* A, __global float* B, int m, int n) {
  int i = get_global_id(1);
  int j = get_global_id(0);
  if ((i >= 1) && (i < m - 1) && (j >= 1) && (j < n - 1)) {
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
  }
}
