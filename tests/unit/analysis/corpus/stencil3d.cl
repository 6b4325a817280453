// Seven-point 3-D stencil with an early return at the domain boundary.
__kernel void stencil3d(__global const double* in, __global double* out, int nx, int ny, int nz) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  int c = (z * ny + y) * nx + x;
  out[c] = (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - nx * ny] + in[c + nx * ny]) / 6.0 - in[c];
}
