// Thesis Figure 3.2: spatial binning, the bins' start indices are increasing.
__kernel void binning(__global const float* A, __global const int* IA, __global float* B, int n) {
  int id = get_global_id(0);
  if (id < n) {
    float sum = 0;
    int start = IA[id];
    int end = IA[id + 1];
    for (int i = start; i < end; i++)
      sum += A[i];
    B[id] = sum;
  }
  #pragma opencl_increasing_buffer IA
}
