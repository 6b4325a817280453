// Polybench fdtd-2d: three stencil kernels per time step (ey, ex, then hz), as in the thesis'
// FDTD2D benchmark. Dimension 0 is the column j (fastest varying); all fields are n x n.

__kernel void fdtd_ey(__global const float *fict, __global float *ex, __global float *ey,
                      __global float *hz, int t, int nx, int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < nx && j < ny) {
    if (i == 0)
      ey[i * ny + j] = fict[t];
    else
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__kernel void fdtd_ex(__global float *ex, __global float *ey, __global float *hz, int nx,
                      int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < nx && j > 0 && j < ny)
    ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__kernel void fdtd_hz(__global float *ex, __global float *ey, __global float *hz, int nx,
                      int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] +
                                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
