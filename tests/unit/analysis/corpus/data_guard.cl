// Writes guarded by data: the condition cannot be expressed, the write is a may-write.
__kernel void data_guard(__global const int* flags, __global const float* in, __global float* out) {
  int i = get_global_id(0);
  if (flags[i] > 0) out[i] = in[i] * 3.0f;
}
