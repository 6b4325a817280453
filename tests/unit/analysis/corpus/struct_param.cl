// A struct passed by value holds the access parameters.
typedef struct { int offset; int stride; float scale; } Params;
__kernel void struct_param(__global const float* in, __global float* out, Params p) {
  int i = get_global_id(0);
  out[i] = p.scale * in[p.offset + i * p.stride];
}
