// Jacobi sweep whose domain width comes from the NDRange (get_global_size): needs the
// partition-ready rewrite (original global size) when split.
__kernel void jacobi2d(__global const float* a, __global float* b) {
  size_t w = get_global_size(0), h = get_global_size(1);
  size_t x = get_global_id(0), y = get_global_id(1);
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    b[y * w + x] = a[y * w + x];
    return;
  }
  b[y * w + x] = 0.25f * (a[y * w + x - 1] + a[y * w + x + 1] + a[(y - 1) * w + x] + a[(y + 1) * w + x]);
}
