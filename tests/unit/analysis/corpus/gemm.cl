// Naive matrix product C = A * B (N x N), one element of C per work-item.
__kernel void gemm(__global const float* A, __global const float* B, __global float* C, int N) {
  int row = get_global_id(1), col = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < N; k++) acc += A[row * N + k] * B[k * N + col];
  C[row * N + col] = acc;
}
