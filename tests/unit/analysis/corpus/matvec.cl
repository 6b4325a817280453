// Dense matrix-vector product, one row per work-item.
__kernel void matvec(__global const float* M, __global const float* v, __global float* out, int cols) {
  int r = get_global_id(0);
  float s = 0.0f;
  for (int c = 0; c < cols; c++) s += M[r * cols + c] * v[c];
  out[r] = s;
}
