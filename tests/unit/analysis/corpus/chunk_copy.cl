// memcpy-like byte loop over a CHUNK-byte block per work-item, and a struct copy.
typedef struct { int a[5]; } Blob;
__kernel void chunk_copy(__global const uchar* src, __global uchar* dst, __global const Blob* bin, __global Blob* bout) {
  int i = get_global_id(0);
  for (int k = 0; k < CHUNK; k++) dst[i * CHUNK + k] = src[i * CHUNK + k];
  bout[i] = bin[i];
}
