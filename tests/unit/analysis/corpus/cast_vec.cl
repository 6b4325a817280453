// Pointer casts to a vector type: (global float4*)p.
__kernel void cast_vec(__global const float* in, __global float* out) {
  int i = get_global_id(0);
  float4 v = ((__global const float4*)in)[i];
  ((__global float4*)out)[i] = v.wzyx;
}
