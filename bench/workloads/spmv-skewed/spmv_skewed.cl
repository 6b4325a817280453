// Sparse matrix-vector product, CSR, one work-item per row, with the thesis' annotation
// (section 3.1.1, Figure 3.2): row_ptr is non-decreasing, so the part of cols/vals a slice of
// rows reads is [row_ptr[first], row_ptr[last + 1] - 1]. Other compilers ignore the pragma.

__kernel void spmv(__global const int *row_ptr, __global const int *cols,
                   __global const float *vals, __global const float *x, __global float *y,
                   int n) {
  int row = get_global_id(0);
  if (row < n) {
    float sum = 0.0f;
    int start = row_ptr[row];
    int end = row_ptr[row + 1];
    for (int k = start; k < end; k++)
      sum += vals[k] * x[cols[k]];
    y[row] = sum;
  }
#pragma opencl_increasing_buffer row_ptr
}
