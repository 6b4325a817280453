// Kernels of the launch-pattern benchmark (launches.cpp): small kernels launched in the patterns
// of real programs, where the cost of each launch, not the kernel, decides the run time.

// plane: a 3-D grid updated one z-plane per launch; the plane is a scalar argument.
__kernel void plane_step(__global float *grid, int nx, int ny, int z) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  long plane = (long)nx * ny;
  long at = (long)z * plane + (long)y * nx + x;
  grid[at] = 0.5f * (grid[at - plane] + grid[at]);
}

// kloop: modified Gram-Schmidt (Polybench gramschmidt), three kernels per column k on ranges
// that shrink with k. a is m x n, row-major; q is m x n; r is n x n.
__kernel void gs_norm(__global const float *a, __global float *r, int k, int m, int n) {
  if (get_global_id(0) != 0) return;
  float nrm = 0.0f;
  for (int i = 0; i < m; i++) nrm += a[i * n + k] * a[i * n + k];
  r[k * n + k] = sqrt(nrm);
}

__kernel void gs_scale(__global const float *a, __global const float *r, __global float *q, int k,
                       int m, int n) {
  int i = get_global_id(0);
  if (i < m) q[i * n + k] = a[i * n + k] / r[k * n + k];
}

// Launched with a global offset of k + 1: work-item j updates column j.
__kernel void gs_project(__global float *a, __global float *r, __global const float *q, int k,
                         int m, int n) {
  int j = get_global_id(0);
  if (j >= n) return;
  float s = 0.0f;
  for (int i = 0; i < m; i++) s += q[i * n + k] * a[i * n + j];
  r[k * n + j] = s;
  for (int i = 0; i < m; i++) a[i * n + j] = a[i * n + j] - q[i * n + k] * s;
}

// tiny and markers: a 1-D three-point stencil and its copy-back (Polybench jacobi-1d).
__kernel void stencil1d(__global const float *a, __global float *b, int n) {
  int i = get_global_id(0);
  if (i >= 1 && i < n - 1) b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}

__kernel void copy1d(__global float *a, __global const float *b, int n) {
  int i = get_global_id(0);
  if (i >= 1 && i < n - 1) a[i] = b[i];
}

// alternate: two kernels of one work-group each, reading each other's output.
__kernel void alt_x(__global float *x, __global const float *y, int n) {
  int i = get_global_id(0);
  if (i < n) x[i] = 0.5f * (x[i] + y[(i + 1) % n]);
}

__kernel void alt_y(__global float *y, __global const float *x, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = 0.5f * (y[i] + x[(i + n - 1) % n]);
}

// large: a 3x3 convolution of a size x size image into another (ping-pong between launches).
__kernel void conv3x3(__global const float *in, __global float *out, int size) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= size || y >= size) return;
  if (x == 0 || y == 0 || x == size - 1 || y == size - 1) {
    out[y * size + x] = in[y * size + x];
    return;
  }
  float s = 0.0625f * (in[(y - 1) * size + x - 1] + in[(y - 1) * size + x + 1] +
                       in[(y + 1) * size + x - 1] + in[(y + 1) * size + x + 1]) +
            0.125f * (in[(y - 1) * size + x] + in[(y + 1) * size + x] + in[y * size + x - 1] +
                      in[y * size + x + 1]) +
            0.25f * in[y * size + x];
  out[y * size + x] = s;
}

// readback: x relaxes towards y at a rate the host picks from the values it read back.
__kernel void relax(__global float *x, __global const float *y, float alpha, int n) {
  int i = get_global_id(0);
  if (i < n) x[i] = x[i] + alpha * (y[i] - x[i]);
}
