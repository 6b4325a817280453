// Array of structs: reads two fields of each element (strided 4-byte ranges).
typedef struct { float x, y, z, m; } Particle;
__kernel void aos_field(__global const Particle* p, __global float* mx) {
  int i = get_global_id(0);
  mx[i] = p[i].x * p[i].m;
}
