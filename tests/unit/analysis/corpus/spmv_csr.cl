// Sparse matrix-vector product (CSR), one row per work-item; the row pointers are sorted.
__kernel void spmv_csr(__global const int* rowptr, __global const int* cols, __global const float* vals,
                       __global const float* x, __global float* y, int rows) {
  int r = get_global_id(0);
  if (r >= rows) return;
  float sum = 0.0f;
  for (int k = rowptr[r]; k < rowptr[r + 1]; k++) sum += vals[k] * x[cols[k]];
  y[r] = sum;
  #pragma opencl_increasing_buffer rowptr
}
