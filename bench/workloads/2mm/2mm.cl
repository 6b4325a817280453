// Polybench 2mm: D = alpha * A * B * C + beta * D as two matrix products (tmp = alpha * A * B,
// then D = tmp * C + beta * D), square n x n. Dimension 0 is the column j.

__kernel void mm2_tmp(__global const float *A, __global const float *B, __global float *tmp,
                      float alpha, int ni, int nj, int nk) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < ni && j < nj) {
    float acc = 0.0f;
    for (int k = 0; k < nk; k++)
      acc += A[i * nk + k] * B[k * nj + j];
    tmp[i * nj + j] = alpha * acc;
  }
}

__kernel void mm2_d(__global const float *tmp, __global const float *C, __global float *D,
                    float beta, int ni, int nj, int nl) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < ni && j < nl) {
    float acc = 0.0f;
    for (int k = 0; k < nj; k++)
      acc += tmp[i * nj + k] * C[k * nl + j];
    D[i * nl + j] = acc + beta * D[i * nl + j];
  }
}
