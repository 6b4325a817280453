// float4 accesses, vload4 and vstore4 (16-byte accesses).
__kernel void vec4(__global const float4* a, __global const float* b, __global float* c) {
  int i = get_global_id(0);
  float4 x = a[i] + vload4(i, b);
  vstore4(x * 2.0f, i, c);
}
