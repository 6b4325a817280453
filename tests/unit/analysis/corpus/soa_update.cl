// Struct of arrays: one array per component, updated in place.
__kernel void soa_update(__global float* x, __global float* y, __global const float* vx,
                         __global const float* vy, float dt) {
  int i = get_global_id(0);
  x[i] += dt * vx[i];
  y[i] += dt * vy[i];
}
