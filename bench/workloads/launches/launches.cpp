// launches: the launch patterns of real OpenCL programs, where what each launch costs the host
// decides the run time: a plane sweep whose scalar argument changes every launch, a k-loop
// factorisation on shrinking ranges, thousands of tiny launches with one clFinish, alternating
// one-work-group kernels, kernel + marker rounds over two queues, large 2-D launches, and a
// blocking read per iteration. An ordinary single-device program (first platform, its default
// device); --iters sets how many kernels it enqueues, so that a layer's cost per launch can be
// compared at 10^3, 10^4 and 10^5 launches (bench/harness, suite "launch-cost").
#include "bench/workloads/common/Random.h"
#include "bench/workloads/common/Result.h"
#include "bench/workloads/common/Session.h"
#include "bench/workloads/common/Stopwatch.h"
#include "bench/workloads/common/Verify.h"

#include "launches_kernel.h"

#include <cmath>
#include <functional>
#include <map>

using namespace clsplit::bench;

namespace {

struct Pattern {
  const char* Help;
  long DefaultSize;
  // Runs the timed region (enqueue loop to the final synchronisation) and verifies the result
  // against a CPU reference; returns the number of kernels it launched.
  std::function<long(Session&, const Program&, long size, long launches, ToleranceCheck&, double& seconds)> Run;
};

void enqueue(const Session& session, const Kernel& kernel, cl_uint dims, const size_t* offset, const size_t* global,
             const size_t* local, cl_command_queue queue = nullptr, cl_uint waits = 0,
             const cl_event* waitList = nullptr, cl_event* event = nullptr) {
  check(clEnqueueNDRangeKernel(queue ? queue : session.queue(), kernel.get(), dims, offset, global, local, waits,
                               waitList, event),
        "clEnqueueNDRangeKernel");
}

template <typename T>
void setArg(const Kernel& kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel.get(), index, sizeof(T), &value), "clSetKernelArg");
}

// --- plane: one launch per z-plane of a size x size x 64 grid, z a scalar argument ------------

long runPlane(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
              double& seconds) {
  const int nx = static_cast<int>(size), ny = static_cast<int>(size), nz = 64;
  const size_t planeSize = static_cast<size_t>(nx) * ny;
  std::vector<float> grid(planeSize * nz);
  fillUniform(grid, 7);
  Kernel step = session.createKernel(program, "plane_step");
  Buffer buffer = session.createBuffer(CL_MEM_READ_WRITE, grid.size() * sizeof(float));
  session.write(buffer, grid);
  setArgs(step, buffer, nx, ny, 0);
  session.finish();
  Stopwatch timed;
  const size_t global[2] = {static_cast<size_t>(nx), static_cast<size_t>(ny)};
  for (long t = 0; t < launches; ++t) {
    setArg(step, 3, static_cast<cl_int>(1 + t % (nz - 1)));
    enqueue(session, step, 2, nullptr, global, nullptr);
  }
  std::vector<float> result(grid.size());
  session.read(buffer, result);
  seconds = timed.seconds();
  for (long t = 0; t < launches; ++t) {
    size_t z = 1 + t % (nz - 1);
    float* out = &grid[z * planeSize];
    const float* below = out - planeSize;
    for (size_t i = 0; i < planeSize; ++i) out[i] = 0.5f * (below[i] + out[i]);
  }
  for (size_t i = 0; i < grid.size(); ++i) verify.compare(i, result[i], grid[i], 1e-5);
  return launches;
}

// --- kloop: modified Gram-Schmidt of a size x size matrix, repeated until `launches` ------------

void gramSchmidt(std::vector<float>& a, std::vector<float>& q, std::vector<float>& r, int n) {
  for (int k = 0; k < n; ++k) {
    float nrm = 0.0f;
    for (int i = 0; i < n; ++i) nrm += a[i * n + k] * a[i * n + k];
    r[k * n + k] = std::sqrt(nrm);
    for (int i = 0; i < n; ++i) q[i * n + k] = a[i * n + k] / r[k * n + k];
    for (int j = k + 1; j < n; ++j) {
      float s = 0.0f;
      for (int i = 0; i < n; ++i) s += q[i * n + k] * a[i * n + j];
      r[k * n + j] = s;
      for (int i = 0; i < n; ++i) a[i * n + j] = a[i * n + j] - q[i * n + k] * s;
    }
  }
}

long runKLoop(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
              double& seconds) {
  const int n = static_cast<int>(size);
  const size_t elements = static_cast<size_t>(n) * n;
  // Diagonally dominant: well conditioned, so float rounding differences stay small.
  std::vector<float> a0(elements);
  fillUniform(a0, 11);
  for (int i = 0; i < n; ++i) a0[i * n + i] += static_cast<float>(n);
  Kernel norm = session.createKernel(program, "gs_norm");
  Kernel scale = session.createKernel(program, "gs_scale");
  Kernel project = session.createKernel(program, "gs_project");
  Buffer bufA0 = session.createBuffer(CL_MEM_READ_ONLY, elements * sizeof(float));
  Buffer bufA = session.createBuffer(CL_MEM_READ_WRITE, elements * sizeof(float));
  Buffer bufQ = session.createBuffer(CL_MEM_READ_WRITE, elements * sizeof(float));
  Buffer bufR = session.createBuffer(CL_MEM_READ_WRITE, elements * sizeof(float));
  session.write(bufA0, a0);
  std::vector<float> zeros(elements, 0.0f);
  session.write(bufQ, zeros);
  session.write(bufR, zeros);
  setArgs(norm, bufA, bufR, 0, n, n);
  setArgs(scale, bufA, bufR, bufQ, 0, n, n);
  setArgs(project, bufA, bufR, bufQ, 0, n, n);
  session.finish();
  const long perFactorisation = 3L * n - 1; // the last column has nothing to project
  const long repeats = std::max(1L, (launches + perFactorisation - 1) / perFactorisation);
  Stopwatch timed;
  for (long rep = 0; rep < repeats; ++rep) {
    check(clEnqueueCopyBuffer(session.queue(), bufA0.get(), bufA.get(), 0, 0, elements * sizeof(float), 0, nullptr,
                              nullptr),
          "clEnqueueCopyBuffer");
    for (int k = 0; k < n; ++k) {
      const size_t one = 1, rows = static_cast<size_t>(n);
      setArg(norm, 2, static_cast<cl_int>(k));
      enqueue(session, norm, 1, nullptr, &one, nullptr);
      setArg(scale, 3, static_cast<cl_int>(k));
      enqueue(session, scale, 1, nullptr, &rows, nullptr);
      if (k + 1 < n) {
        const size_t offset = static_cast<size_t>(k) + 1, columns = static_cast<size_t>(n - k - 1);
        setArg(project, 3, static_cast<cl_int>(k));
        enqueue(session, project, 1, &offset, &columns, nullptr);
      }
    }
  }
  std::vector<float> q(elements), r(elements);
  session.read(bufQ, q);
  session.read(bufR, r);
  seconds = timed.seconds();
  std::vector<float> a = a0, qRef(elements, 0.0f), rRef(elements, 0.0f);
  gramSchmidt(a, qRef, rRef, n); // every repetition computes the same factorisation
  // Q's entries are O(1/sqrt(n)), R's O(n): relative tolerances far above float rounding
  // through sqrt, division and n-term sums, far below a missing or stale column.
  for (size_t i = 0; i < elements; ++i) verify.compare(i, q[i], qRef[i], 1e-4);
  for (size_t i = 0; i < elements; ++i) verify.compare(elements + i, r[i], rRef[i], 1e-4 * (1.0 + std::fabs(rRef[i])));
  return repeats * perFactorisation;
}

// --- tiny: stencil + copy on a small 1-D grid, one clFinish at the end -------------------------

void jacobi1d(std::vector<float>& a, std::vector<float>& b, long iterations) {
  const size_t n = a.size();
  for (long t = 0; t < iterations; ++t) {
    for (size_t i = 1; i + 1 < n; ++i) b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
    for (size_t i = 1; i + 1 < n; ++i) a[i] = b[i];
  }
}

// The 1-D grid of `tiny` and `markers`: two buffers on the device, the stencil and copy kernels
// bound to them, and the host's copy the reference advances.
struct Grid1d {
  Grid1d(Session& session, const Program& program, size_t points, unsigned seed)
      : n(points), a(points), stencil(session.createKernel(program, "stencil1d")),
        copy(session.createKernel(program, "copy1d")), bufA(session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float))),
        bufB(session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float))) {
    fillUniform(a, seed);
    b = a;
    session.write(bufA, a);
    session.write(bufB, b);
    setArgs(stencil, bufA, bufB, static_cast<cl_int>(n));
    setArgs(copy, bufA, bufB, static_cast<cl_int>(n));
    session.finish();
  }

  // Reads the device's grid and compares it with `iterations` steps of the reference.
  void verify(Session& session, long iterations, ToleranceCheck& check) {
    std::vector<float> result(n);
    session.read(bufA, result);
    jacobi1d(a, b, iterations);
    for (size_t i = 0; i < n; ++i) check.compare(i, result[i], a[i], 1e-5);
  }

  size_t n;
  std::vector<float> a, b;
  Kernel stencil, copy;
  Buffer bufA, bufB;
};

long runTiny(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
             double& seconds) {
  Grid1d grid(session, program, static_cast<size_t>(size), 3);
  const size_t n = grid.n;
  const long iterations = std::max(1L, launches / 2);
  Stopwatch timed;
  for (long t = 0; t < iterations; ++t) {
    enqueue(session, grid.stencil, 1, nullptr, &n, nullptr);
    enqueue(session, grid.copy, 1, nullptr, &n, nullptr);
  }
  session.finish();
  seconds = timed.seconds();
  grid.verify(session, iterations, verify);
  return 2 * iterations;
}

// --- alternate: two one-work-group kernels, each reading the other's output ------------------

long runAlternate(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
                  double& seconds) {
  const int n = static_cast<int>(size);
  std::vector<float> x(n), y(n);
  fillUniform(x, 5);
  fillUniform(y, 6);
  Kernel kx = session.createKernel(program, "alt_x");
  Kernel ky = session.createKernel(program, "alt_y");
  Buffer bufX = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  Buffer bufY = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  session.write(bufX, x);
  session.write(bufY, y);
  setArgs(kx, bufX, bufY, n);
  setArgs(ky, bufY, bufX, n);
  session.finish();
  const long rounds = std::max(1L, launches / 2);
  const size_t global = static_cast<size_t>(n);
  Stopwatch timed;
  for (long t = 0; t < rounds; ++t) {
    enqueue(session, kx, 1, nullptr, &global, &global);
    enqueue(session, ky, 1, nullptr, &global, &global);
  }
  std::vector<float> rx(n), ry(n);
  session.read(bufX, rx);
  session.read(bufY, ry);
  seconds = timed.seconds();
  for (long t = 0; t < rounds; ++t) {
    std::vector<float> nx(n), ny(n);
    for (int i = 0; i < n; ++i) nx[i] = 0.5f * (x[i] + y[(i + 1) % n]);
    x = nx;
    for (int i = 0; i < n; ++i) ny[i] = 0.5f * (y[i] + x[(i + n - 1) % n]);
    y = ny;
  }
  for (int i = 0; i < n; ++i) verify.compare(i, rx[i], x[i], 1e-5);
  for (int i = 0; i < n; ++i) verify.compare(n + i, ry[i], y[i], 1e-5);
  return 2 * rounds;
}

// --- markers: stencil on one queue, copy on another, each followed by a marker the other
//     queue's next kernel waits for (the conformance suite's marker tests, as a program) ------

long runMarkers(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
                double& seconds) {
  Grid1d grid(session, program, static_cast<size_t>(size), 9);
  const size_t n = grid.n;
  cl_int status = CL_SUCCESS;
  Queue second(clCreateCommandQueue(session.context(), session.device(), 0, &status));
  check(status, "clCreateCommandQueue");
  const long rounds = std::max(1L, launches / 2);
  Stopwatch timed;
  cl_event previous = nullptr;
  for (long t = 0; t < rounds; ++t) {
    cl_event stencilDone = nullptr, copyDone = nullptr;
    enqueue(session, grid.stencil, 1, nullptr, &n, nullptr, session.queue(), previous ? 1 : 0,
            previous ? &previous : nullptr);
    check(clEnqueueMarkerWithWaitList(session.queue(), 0, nullptr, &stencilDone), "clEnqueueMarkerWithWaitList");
    if (previous) clReleaseEvent(previous);
    enqueue(session, grid.copy, 1, nullptr, &n, nullptr, second.get(), 1, &stencilDone);
    check(clEnqueueMarkerWithWaitList(second.get(), 0, nullptr, &copyDone), "clEnqueueMarkerWithWaitList");
    clReleaseEvent(stencilDone);
    previous = copyDone;
  }
  check(clWaitForEvents(1, &previous), "clWaitForEvents");
  clReleaseEvent(previous);
  seconds = timed.seconds();
  check(clFinish(second.get()), "clFinish");
  grid.verify(session, rounds, verify);
  return 2 * rounds;
}

// --- large: 3x3 convolutions of a size x size image, ping-pong ---------------------------------

long runLarge(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
              double& seconds) {
  const int s = static_cast<int>(size);
  const size_t pixels = static_cast<size_t>(s) * s;
  std::vector<float> image(pixels);
  fillUniform(image, 13);
  Kernel conv = session.createKernel(program, "conv3x3");
  Buffer ping = session.createBuffer(CL_MEM_READ_WRITE, pixels * sizeof(float));
  Buffer pong = session.createBuffer(CL_MEM_READ_WRITE, pixels * sizeof(float));
  session.write(ping, image);
  session.finish();
  const size_t global[2] = {static_cast<size_t>(s), static_cast<size_t>(s)};
  Stopwatch timed;
  for (long t = 0; t < launches; ++t) {
    if (t % 2 == 0)
      setArgs(conv, ping, pong, s);
    else
      setArgs(conv, pong, ping, s);
    enqueue(session, conv, 2, nullptr, global, nullptr);
  }
  std::vector<float> result(pixels);
  session.read(launches % 2 ? pong : ping, result);
  seconds = timed.seconds();
  std::vector<float> in = image, out(pixels);
  for (long t = 0; t < launches; ++t) {
    for (int y = 0; y < s; ++y)
      for (int x = 0; x < s; ++x) {
        size_t at = static_cast<size_t>(y) * s + x;
        if (x == 0 || y == 0 || x == s - 1 || y == s - 1) {
          out[at] = in[at];
          continue;
        }
        out[at] = 0.0625f * (in[at - s - 1] + in[at - s + 1] + in[at + s - 1] + in[at + s + 1]) +
                  0.125f * (in[at - s] + in[at + s] + in[at - 1] + in[at + 1]) + 0.25f * in[at];
      }
    std::swap(in, out);
  }
  for (size_t i = 0; i < pixels; ++i) verify.compare(i, result[i], in[i], 1e-5);
  return launches;
}

// --- readback: a launch, then a blocking read of 16 values that set the next launch's rate ----

long runReadback(Session& session, const Program& program, long size, long launches, ToleranceCheck& verify,
                 double& seconds) {
  const size_t n = static_cast<size_t>(size);
  std::vector<float> x(n), y(n);
  fillUniform(x, 17);
  fillUniform(y, 19);
  Kernel relax = session.createKernel(program, "relax");
  Buffer bufX = session.createBuffer(CL_MEM_READ_WRITE, n * sizeof(float));
  Buffer bufY = session.createBuffer(CL_MEM_READ_ONLY, n * sizeof(float));
  session.write(bufX, x);
  session.write(bufY, y);
  setArgs(relax, bufX, bufY, 0.5f, static_cast<cl_int>(n));
  session.finish();
  // The rate the host derives from what it read: a feedback loop, as in a solver checking its
  // residual every iteration; the reference derives it from its own values.
  auto rateFrom = [](const float* head) { return 0.25f + 0.5f * std::fabs(head[0] - head[15]); };
  float head[16];
  float alpha = 0.5f;
  Stopwatch timed;
  for (long t = 0; t < launches; ++t) {
    setArg(relax, 2, alpha);
    enqueue(session, relax, 1, nullptr, &n, nullptr);
    check(clEnqueueReadBuffer(session.queue(), bufX.get(), CL_TRUE, 0, sizeof head, head, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    alpha = rateFrom(head);
  }
  std::vector<float> result(n);
  session.read(bufX, result);
  seconds = timed.seconds();
  float rate = 0.5f;
  for (long t = 0; t < launches; ++t) {
    for (size_t i = 0; i < n; ++i) x[i] = x[i] + rate * (y[i] - x[i]);
    rate = rateFrom(x.data());
  }
  // The rate stays in [0.25, 0.75] and x converges towards y, so a last-bit difference in one
  // rate cannot grow; 1e-4 is far below a skipped or repeated launch.
  for (size_t i = 0; i < n; ++i) verify.compare(i, result[i], x[i], 1e-4);
  return launches;
}

const std::map<std::string, Pattern>& patterns() {
  static const std::map<std::string, Pattern> all = {
      {"plane", {"one launch per plane of a size^2 x 64 grid, the plane a scalar argument", 64, runPlane}},
      {"kloop", {"Gram-Schmidt of a size^2 matrix: 3 kernels per column, shrinking ranges", 64, runKLoop}},
      {"tiny", {"1-D stencil + copy over size points, one clFinish at the end", 16384, runTiny}},
      {"alternate", {"two kernels of one work-group (size items) alternating", 64, runAlternate}},
      {"markers", {"stencil + marker on one queue, copy + marker on another, chained", 16384, runMarkers}},
      {"large", {"3x3 convolutions of a size^2 image (2-D launches)", 512, runLarge}},
      {"readback", {"a launch, then a blocking read of 64 bytes, every iteration", 16384, runReadback}},
  };
  return all;
}

int run(int argc, char** argv) {
  ArgParser args(argc, argv, "launch patterns of real programs; size and launch count per pattern");
  std::vector<std::string> names;
  for (const auto& [name, pattern] : patterns()) names.push_back(name);
  const std::string name = args.choice("--pattern", "tiny", names, "which launch pattern");
  // --iters: the number of kernel launches (a pattern rounds it to its own unit: a factorisation,
  // a round of two kernels).
  CommonOptions options = parseCommonOptions(args, 0, 0, 1L << 20, 1000);
  const long launches = options.Iterations;
  args.finish();
  const Pattern& pattern = patterns().at(name);
  const long size = options.Size > 0 ? options.Size : pattern.DefaultSize;

  Stopwatch total;
  Session session = Session::open(options, DevicePolicy::FirstPlatformDefault);
  Program program = session.buildProgram(kKernelSource);
  ToleranceCheck verify("launches " + name);
  RunResult r;
  const long made = pattern.Run(session, program, size, launches, verify, r.Seconds);
  r.TotalSeconds = total.seconds();
  r.Workload = "launches";
  r.Variant = name;
  r.Size = size;
  r.Iterations = static_cast<int>(std::min<long>(made, 1L << 30));
  r.Check = "full";
  r.Extra = {{"launches", std::to_string(made)},
             {"us_per_launch", std::to_string(r.Seconds * 1e6 / static_cast<double>(made))}};
  record(r, verify);
  return finishRun(r, session);
}

} // namespace

int main(int argc, char** argv) {
  return guardedMain([&] { return run(argc, argv); });
}
