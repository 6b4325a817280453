// The launch patterns of real programs, at counts where a cost that grows with the number of
// launches made shows as a hang or a timeout: a plane sweep whose scalar argument changes every
// launch, a k-loop elimination on ranges that shrink with k (global offsets), thousands of tiny
// launches, alternating one-work-group kernels, kernel + marker rounds over two queues (each
// queue's kernel waiting for the other's marker), a chain of events, and a blocking read per
// iteration whose value feeds the next launch. Integer kernels: every configuration must give
// the reference's bytes.
#include "itest.h"

using namespace itest;

static const char* kSource = R"CLC(
kernel void plane(global int* g, int nx, int ny, int z) {
  int x = (int)get_global_id(0), y = (int)get_global_id(1);
  int at = (z * ny + y) * nx + x;
  g[at] = (g[at - nx * ny] * 3 + g[at] + x - y) % 100003;
}

// One elimination step over an n x n matrix modulo a prime: row k is the pivot row.
kernel void pivot(global int* a, global int* piv, int k, int n) {
  if (get_global_id(0) == 0) piv[k] = a[k * n + k] % 65521 + 1;
}

kernel void eliminate(global int* a, global const int* piv, int k, int n) {
  int i = (int)get_global_id(0); // launched at offset k + 1: rows below the pivot
  int f = a[i * n + k] % 65521;
  for (int j = k; j < n; ++j)
    a[i * n + j] = (int)(((long)a[i * n + j] * piv[k] - (long)f * a[k * n + j]) % 65521);
}

kernel void stencil(global const int* in, global int* out, int n) {
  int i = (int)get_global_id(0);
  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + 2 * in[i] + in[i + 1]) / 4 + (i & 1);
}

kernel void copyBack(global int* a, global const int* b, int n) {
  int i = (int)get_global_id(0);
  if (i > 0 && i < n - 1) a[i] = b[i];
}

// The same pair for the tiny launches, named for what the boundary-first configurations check:
// the copy writes what the other devices' stencils fetch next, so it runs its edges first.
kernel void halo_stencil(global const int* in, global int* out, int n) {
  int i = (int)get_global_id(0);
  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + 2 * in[i] + in[i + 1]) / 4 + (i & 1);
}

kernel void halo_copy(global int* a, global const int* b, int n) {
  int i = (int)get_global_id(0);
  if (i > 0 && i < n - 1) a[i] = b[i];
}

kernel void altX(global int* x, global const int* y, int n) {
  int i = (int)get_global_id(0);
  x[i] = (x[i] + y[(i + 1) % n]) / 2 + 1;
}

kernel void altY(global int* y, global const int* x, int n) {
  int i = (int)get_global_id(0);
  y[i] = (y[i] + x[(i + n - 1) % n]) / 2 - 1;
}

kernel void relax(global int* x, global const int* y, int rate) {
  int i = (int)get_global_id(0);
  x[i] = x[i] + (y[i] - x[i]) * rate / 8;
}
)CLC";

namespace {

cl_mem buffer(const Env& env, std::vector<int>& data) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(int),
                              data.data(), &err);
  check(err, "clCreateBuffer", __FILE__, __LINE__);
  return mem;
}

void read(const Env& env, cl_mem mem, std::vector<int>& out) {
  check(clEnqueueReadBuffer(env.queue, mem, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer", __FILE__, __LINE__);
}

template <class T>
void arg(cl_kernel k, cl_uint i, const T& v) {
  check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg", __FILE__, __LINE__);
}

// Sets arguments 0, 1, ... in order.
template <class... T>
void args(cl_kernel k, const T&... v) {
  cl_uint i = 0;
  (arg(k, i++, v), ...);
}

void launch(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t* offset, const size_t* global,
            const size_t* local, cl_uint waits = 0, const cl_event* list = nullptr, cl_event* event = nullptr) {
  check(clEnqueueNDRangeKernel(q, k, dims, offset, global, local, waits, list, event), "clEnqueueNDRangeKernel",
        __FILE__, __LINE__);
}

std::vector<int> pattern(size_t n, int seed) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>((i * 2654435761u + seed * 97u) % 1000);
  return v;
}

} // namespace

int main() {
  Env env = setup();
  cl_program program = buildProgram(env, kSource);

  { // A plane sweep: 600 launches, the plane a scalar argument that changes every launch.
    const int nx = 32, ny = 16, nz = 8;
    auto grid = pattern(static_cast<size_t>(nx) * ny * nz, 1);
    cl_mem g = buffer(env, grid);
    cl_kernel k = createKernel(program, "plane");
    args(k, g, nx, ny);
    const size_t global[2] = {nx, ny};
    for (int t = 0; t < 600; ++t) {
      arg(k, 3, 1 + t % (nz - 1));
      launch(env.queue, k, 2, nullptr, global, nullptr);
    }
    read(env, g, grid);
    printChecksum("plane sweep", grid);
    clReleaseKernel(k);
    clReleaseMemObject(g);
  }

  { // A k-loop: elimination of a 160 x 160 matrix, twice (2 x 318 launches on shrinking ranges).
    const int n = 160;
    auto a0 = pattern(static_cast<size_t>(n) * n, 2);
    std::vector<int> pivots(n, 0);
    cl_mem a = buffer(env, a0), piv = buffer(env, pivots), original = buffer(env, a0);
    cl_kernel kp = createKernel(program, "pivot"), ke = createKernel(program, "eliminate");
    args(kp, a, piv);
    arg(kp, 3, n);
    args(ke, a, piv);
    arg(ke, 3, n);
    for (int rep = 0; rep < 2; ++rep) {
      check(clEnqueueCopyBuffer(env.queue, original, a, 0, 0, a0.size() * sizeof(int), 0, nullptr, nullptr),
            "clEnqueueCopyBuffer", __FILE__, __LINE__);
      for (int k = 0; k + 1 < n; ++k) {
        const size_t one = 1, offset = static_cast<size_t>(k) + 1, rows = static_cast<size_t>(n - k - 1);
        arg(kp, 2, k);
        launch(env.queue, kp, 1, nullptr, &one, nullptr);
        arg(ke, 2, k);
        launch(env.queue, ke, 1, &offset, &rows, nullptr);
      }
    }
    std::vector<int> out(a0.size());
    read(env, a, out);
    read(env, piv, pivots);
    printChecksum("k-loop matrix", out);
    printChecksum("k-loop pivots", pivots);
    clReleaseKernel(kp);
    clReleaseKernel(ke);
    for (cl_mem m : {a, piv, original}) clReleaseMemObject(m);
  }

  { // 3000 tiny launches (stencil + copy), one clFinish.
    const int n = 4096;
    auto x = pattern(n, 3), y = x;
    cl_mem a = buffer(env, x), b = buffer(env, y);
    cl_kernel ks = createKernel(program, "halo_stencil"), kc = createKernel(program, "halo_copy");
    args(ks, a, b, n);
    args(kc, a, b, n);
    const size_t global = n;
    for (int t = 0; t < 1500; ++t) {
      launch(env.queue, ks, 1, nullptr, &global, nullptr);
      launch(env.queue, kc, 1, nullptr, &global, nullptr);
    }
    check(clFinish(env.queue), "clFinish", __FILE__, __LINE__);
    read(env, a, x);
    printChecksum("tiny launches", x);
    clReleaseKernel(ks);
    clReleaseKernel(kc);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
  }

  { // Two one-work-group kernels alternating 2 x 800 times.
    const int n = 64;
    auto x = pattern(n, 4), y = pattern(n, 5);
    cl_mem bx = buffer(env, x), by = buffer(env, y);
    cl_kernel kx = createKernel(program, "altX"), ky = createKernel(program, "altY");
    args(kx, bx, by, n);
    args(ky, by, bx, n);
    const size_t global = n;
    for (int t = 0; t < 800; ++t) {
      launch(env.queue, kx, 1, nullptr, &global, &global);
      launch(env.queue, ky, 1, nullptr, &global, &global);
    }
    read(env, bx, x);
    read(env, by, y);
    printChecksum("alternating x", x);
    printChecksum("alternating y", y);
    clReleaseKernel(kx);
    clReleaseKernel(ky);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
  }

  { // 300 rounds over two queues: stencil + marker on one, copy + marker on the other, each
    // kernel waiting for the other queue's last marker.
    const int n = 2048;
    auto x = pattern(n, 6), y = x;
    cl_int err = CL_SUCCESS;
    cl_command_queue second = clCreateCommandQueue(env.context, env.device, 0, &err);
    check(err, "clCreateCommandQueue", __FILE__, __LINE__);
    cl_mem a = buffer(env, x), b = buffer(env, y);
    cl_kernel ks = createKernel(program, "stencil"), kc = createKernel(program, "copyBack");
    args(ks, a, b, n);
    args(kc, a, b, n);
    const size_t global = n;
    cl_event previous = nullptr;
    for (int t = 0; t < 300; ++t) {
      cl_event first = nullptr, done = nullptr;
      launch(env.queue, ks, 1, nullptr, &global, nullptr, previous ? 1 : 0, previous ? &previous : nullptr);
      check(clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, &first), "clEnqueueMarkerWithWaitList", __FILE__,
            __LINE__);
      if (previous) clReleaseEvent(previous);
      launch(second, kc, 1, nullptr, &global, nullptr, 1, &first);
      check(clEnqueueMarkerWithWaitList(second, 0, nullptr, &done), "clEnqueueMarkerWithWaitList", __FILE__, __LINE__);
      clReleaseEvent(first);
      previous = done;
    }
    check(clWaitForEvents(1, &previous), "clWaitForEvents", __FILE__, __LINE__);
    clReleaseEvent(previous);
    read(env, a, x);
    printChecksum("markers over two queues", x);
    clReleaseKernel(ks);
    clReleaseKernel(kc);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseCommandQueue(second);
  }

  { // A chain of 1000 launches, each waiting for the previous one's event.
    const int n = 1024;
    auto x = pattern(n, 7), y = pattern(n, 8);
    cl_mem bx = buffer(env, x), by = buffer(env, y);
    cl_kernel k = createKernel(program, "relax");
    args(k, bx, by, 3);
    const size_t global = n;
    cl_event previous = nullptr;
    for (int t = 0; t < 1000; ++t) {
      cl_event next = nullptr;
      launch(env.queue, k, 1, nullptr, &global, nullptr, previous ? 1 : 0, previous ? &previous : nullptr, &next);
      if (previous) clReleaseEvent(previous);
      previous = next;
    }
    check(clWaitForEvents(1, &previous), "clWaitForEvents", __FILE__, __LINE__);
    clReleaseEvent(previous);
    read(env, bx, x);
    printChecksum("event chain", x);
    clReleaseKernel(k);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
  }

  { // A blocking read of 16 bytes after every launch; the value read sets the next rate.
    const int n = 2048;
    auto x = pattern(n, 9), y = pattern(n, 10);
    cl_mem bx = buffer(env, x), by = buffer(env, y);
    cl_kernel k = createKernel(program, "relax");
    args(k, bx, by);
    const size_t global = n;
    int head[4] = {0, 0, 0, 0};
    int rate = 4;
    for (int t = 0; t < 300; ++t) {
      arg(k, 2, rate);
      launch(env.queue, k, 1, nullptr, &global, nullptr);
      check(clEnqueueReadBuffer(env.queue, bx, CL_TRUE, 0, sizeof head, head, 0, nullptr, nullptr),
            "clEnqueueReadBuffer", __FILE__, __LINE__);
      rate = 1 + ((head[0] ^ head[3]) & 7);
    }
    read(env, bx, x);
    printChecksum("blocking reads", x);
    std::printf("last rate: %d\n", rate);
    clReleaseKernel(k);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
  }

  clReleaseProgram(program);
  env.release();
  return finish();
}
