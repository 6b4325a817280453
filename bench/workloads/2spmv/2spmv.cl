// Sparse matrix-vector product, CSR, one work-item per row. The 2spmv program creates two
// kernel objects from it: y = A1 x, then x = A2 y (thesis 2SpMV, Table 4.2).

__kernel void spmv(__global const int *row_ptr, __global const int *cols,
                   __global const float *vals, __global const float *x, __global float *y,
                   int n) {
  int row = get_global_id(0);
  if (row < n) {
    float sum = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
      sum += vals[k] * x[cols[k]];
    y[row] = sum;
  }
}
