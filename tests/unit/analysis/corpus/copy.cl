// Plain copy: one element per work-item.
__kernel void copy(__global const float* src, __global float* dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}
