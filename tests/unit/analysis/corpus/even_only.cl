// A guard the region language cannot express exactly (parity): the write is a may-write.
__kernel void even_only(__global const float* in, __global float* out) {
  int i = get_global_id(0);
  if ((i & 1) == 0) out[i] = in[i] + 1.0f;
}
