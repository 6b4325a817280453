// Polybench jacobi-1d as two kernels per time step (stencil, then copy back), as in the
// thesis' Jacobi1D benchmark (Tables 4.1 and 4.2).

__kernel void jacobi1d_stencil(__global const float *A, __global float *B, int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1)
    B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
}

__kernel void jacobi1d_copy(__global float *A, __global const float *B, int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1)
    A[i] = B[i];
}
