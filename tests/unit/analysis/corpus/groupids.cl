// 2-D indices built from group and local ids.
__kernel void groupids(__global const int* in, __global int* out, int width) {
  int gx = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int gy = get_group_id(1) * get_local_size(1) + get_local_id(1);
  out[gy * width + gx] = in[gy * width + gx] + 1;
}
