// The 1-D Jacobi pair the planner tests plan: a 3-point stencil and the copy back.
#pragma once

namespace clsplit::planner::test {

inline constexpr const char* kStencilKernels = R"CLC(
kernel void stencil(global const float* a, global float* b, int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1) b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}
kernel void copy(global float* a, global const float* b, int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1) a[i] = b[i];
}
)CLC";

} // namespace clsplit::planner::test
