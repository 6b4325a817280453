// Polybench jacobi-2d as two kernels per time step (5-point stencil, then copy back), as in the
// thesis' Jacobi2D benchmark. Dimension 0 is the column (fastest varying), as in Polybench.

__kernel void jacobi2d_stencil(__global const float *A, __global float *B, int n) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}

__kernel void jacobi2d_copy(__global float *A, __global const float *B, int n) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
    A[i * n + j] = B[i * n + j];
}
