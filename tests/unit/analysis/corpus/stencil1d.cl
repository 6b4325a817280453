// Thesis Figure 2.10: guarded three-point stencil.
__kernel void stencil1d(__global const float* A, __global float* B, int n) {
  int i = get_global_id(0);
  if (i >= 1 && i < n - 1) {
    B[i] = 0.3f * (A[i - 1] + A[i] + A[i + 1]);
  }
}
