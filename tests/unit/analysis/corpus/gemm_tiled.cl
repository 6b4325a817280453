// Tiled matrix product with __local staging (TILE from the build options).
__kernel void gemm_tiled(__global const float* A, __global const float* B, __global float* C, int N) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int row = get_group_id(1) * TILE + get_local_id(1);
  int col = get_group_id(0) * TILE + get_local_id(0);
  float acc = 0.0f;
  for (int t = 0; t < N / TILE; t++) {
    As[get_local_id(1)][get_local_id(0)] = A[row * N + t * TILE + get_local_id(0)];
    Bs[get_local_id(1)][get_local_id(0)] = B[(t * TILE + get_local_id(1)) * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++) acc += As[get_local_id(1)][k] * Bs[k][get_local_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * N + col] = acc;
}
