// Every work-group writes the same bytes (indexed by local id only): slices overlap.
__kernel void lid_only(__global const float* in, __global float* out) {
  int l = get_local_id(0);
  out[l] = in[l] + 1.0f;
}
