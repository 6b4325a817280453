// Access pattern fixed by macros from the build options (-DSCALE=... -DOFFSET=...).
__kernel void macros(__global const float* in, __global float* out) {
  int i = get_global_id(0);
  out[i + OFFSET] = in[i * SCALE + OFFSET];
}
