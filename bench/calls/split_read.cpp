// split-read: how fast the host reads back a buffer whose halves live on two devices, by each way
// an implementation could issue the reads (direct vendor calls, no clsplit). clsplit's blocking
// read of a buffer split over two H100 waited ~6 ms past the profiled end of its two
// device-to-host copies (docs/benchmarks.md, sixteenth session); this measures where that goes.
// Devices: the first two GPUs of the first platform that has one (one GPU: used twice, through
// two contexts; no GPU: the first platform's devices). Prints one line per way: median wall ms
// of `--repeat` runs, and the longest profiled copy (END - START) of the last run. `--hops N`
// then times halo exchanges between the two devices by staging memory and kind of wait, and
// `--move MIB` one large block moved from one device to the other through host memory.
#include "SingleDevice.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using clsplit::bench::check;
using clsplit::bench::nowS;

namespace {

struct Side {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_mem half = nullptr;
};

double profiledMs(cl_event e) {
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
  return double(end - start) / 1e6;
}

// `bytes` of pinned host memory of `ctx` (an ALLOC_HOST_PTR buffer mapped through `q`, kept
// mapped until the process ends).
unsigned char* pinnedMemory(cl_context ctx, cl_command_queue q, size_t bytes) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
  check(err, "clCreateBuffer (pinned)");
  auto* p = static_cast<unsigned char*>(
      clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err));
  check(err, "clEnqueueMapBuffer");
  return p;
}

// `--hops N`: a halo exchange as clsplit stages it between two GPUs of one context, N times: a
// kernel on each device, then each device's 16 KiB boundary read into host memory and written
// to the other device after that read. The staging memory (pageable; pinned, made once; blocks
// rotating through a 1 MiB pinned slab, made up front or midway) and how the write waits for
// the read (its event; or a user event set when the read's completion callback runs, as a
// host-side wait does) vary; with the kernels alone for reference. Prints us per iteration,
// then checks each way's bytes: every hop must carry the value of its own iteration.
void haloHops(const std::vector<cl_device_id>& gpus, unsigned n) {
  const char* source = "__kernel void put(__global uint* b, uint v) { b[get_global_id(0)] = v; }";
  cl_device_id devs[2] = {gpus[0], gpus[std::min<size_t>(1, gpus.size() - 1)]};
  const cl_uint ndev = devs[0] == devs[1] ? 1 : 2;
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, ndev, devs, nullptr, nullptr, &err);
  check(err, "clCreateContext (both)");
  cl_command_queue q[2];
  cl_mem buf[2];
  const size_t elems = 1 << 20, halo = 16 << 10, slabBytes = 1 << 20;
  for (unsigned d = 0; d < 2; ++d) {
    q[d] = clCreateCommandQueue(ctx, devs[d], 0, &err);
    check(err, "clCreateCommandQueue");
    buf[d] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, elems * 4, nullptr, &err);
    check(err, "clCreateBuffer");
  }
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(prog, ndev, devs, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k[2];
  for (unsigned d = 0; d < 2; ++d) {
    k[d] = clCreateKernel(prog, "put", &err);
    check(err, "clCreateKernel");
    check(clSetKernelArg(k[d], 0, sizeof(cl_mem), &buf[d]), "clSetKernelArg");
  }
  auto mapPinned = [&](size_t bytes) { return pinnedMemory(ctx, q[0], bytes); };
  unsigned char* pinned = mapPinned(2 * halo);
  unsigned char* slab = mapPinned(slabBytes);
  std::vector<unsigned char> pageable(2 * halo);
  enum class Memory { None, Pageable, Pinned, Slab, SlabMidway };
  struct Way {
    const char* name;
    Memory memory;
    bool userEvent;
    bool measured = false; // kernels carry an event with a completion callback, as clsplit's timed launches
  };
  const Way ways[] = {{"kernels only", Memory::None, false},
                      {"pageable, event", Memory::Pageable, false},
                      {"pinned, event", Memory::Pinned, false},
                      {"slab rotation, event", Memory::Slab, false},
                      {"slab made midway, event", Memory::SlabMidway, false},
                      {"pageable, user event", Memory::Pageable, true},
                      {"slab rotation, user event", Memory::Slab, true},
                      {"pinned, event, timed kernels", Memory::Pinned, false, true}};
  // Sets the user event (`data`) when the read completes, as clsplit's host-side waits do.
  auto release = [](cl_event, cl_int status, void* data) {
    clSetUserEventStatus(static_cast<cl_event>(data), status < 0 ? status : CL_COMPLETE);
    clReleaseEvent(static_cast<cl_event>(data));
  };
  const size_t global = elems;
  auto nothing = [](cl_event, cl_int, void*) {};
  for (const Way& way : ways) {
    double releaseS = 0; // inside clReleaseEvent, timed pass
    unsigned char* midway = nullptr;
    unsigned wrong = 0;
    for (unsigned pass = 0; pass < 3; ++pass) { // warm-up, timed, checked
      const double t0 = nowS();
      for (unsigned i = 0; i < n; ++i) {
        unsigned char* host = pageable.data();
        if (way.memory == Memory::Pinned) host = pinned;
        if (way.memory == Memory::Slab) host = slab + (i % (slabBytes / (2 * halo))) * 2 * halo;
        if (way.memory == Memory::SlabMidway && pass == 1 && i == n / 2) midway = mapPinned(slabBytes);
        if (way.memory == Memory::SlabMidway && midway) host = midway + (i % (slabBytes / (2 * halo))) * 2 * halo;
        for (unsigned d = 0; d < 2; ++d) {
          const cl_uint v = 2 * i + d + 1;
          check(clSetKernelArg(k[d], 1, sizeof v, &v), "clSetKernelArg");
          cl_event kev = nullptr;
          check(clEnqueueNDRangeKernel(q[d], k[d], 1, nullptr, &global, nullptr, 0, nullptr,
                                       way.measured ? &kev : nullptr),
                "kernel");
          if (kev) {
            check(clSetEventCallback(kev, CL_COMPLETE, nothing, nullptr), "clSetEventCallback");
            const double r0 = nowS();
            clReleaseEvent(kev);
            if (pass == 1) releaseS += nowS() - r0;
          }
        }
        if (way.memory == Memory::None) continue;
        cl_event read[2];
        for (unsigned d = 0; d < 2; ++d) // d's last halo rows to the host
          check(clEnqueueReadBuffer(q[d], buf[d], CL_FALSE, elems * 4 - halo, halo, host + d * halo, 0, nullptr,
                                    &read[d]),
                "read");
        for (unsigned d = 0; d < 2; ++d) { // ... and into the other device, after that read
          cl_event after = read[d];
          if (way.userEvent) {
            after = clCreateUserEvent(ctx, &err);
            check(err, "clCreateUserEvent");
            clRetainEvent(after); // the callback's reference
            check(clSetEventCallback(read[d], CL_COMPLETE, release, after), "clSetEventCallback");
          }
          check(clEnqueueWriteBuffer(q[1 - d], buf[1 - d], CL_FALSE, 0, halo, host + d * halo, 1, &after, nullptr),
                "write");
          const double r0 = nowS();
          if (after != read[d]) clReleaseEvent(after);
          clReleaseEvent(read[d]);
          if (pass == 1) releaseS += nowS() - r0;
        }
        for (unsigned d = 0; d < 2; ++d) clFlush(q[d]);
        if (pass == 2) { // the hop's bytes: the other device's value of this iteration
          for (unsigned d = 0; d < 2; ++d) {
            cl_uint got = 0;
            check(clEnqueueReadBuffer(q[1 - d], buf[1 - d], CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr),
                  "check");
            wrong += got != 2 * i + d + 1;
          }
        }
      }
      for (unsigned d = 0; d < 2; ++d) check(clFinish(q[d]), "clFinish");
      if (pass == 1)
        std::printf("halo hops, %-28s %8.1f us per iteration (%u iterations; %.2f us in clReleaseEvent)", way.name,
                    (nowS() - t0) * 1e6 / n, n, releaseS * 1e6 / n);
    }
    std::printf("%s\n", way.memory == Memory::None ? "" : wrong ? "  WRONG BYTES" : "  (bytes checked)");
  }
}

// `--move MIB`: MIB moved from device 0's buffer to device 1's through host memory, as clsplit
// stages a split given up (one context for both, as clsplit has them), each way `repeat` times:
// into fresh pageable memory (a new allocation each time, as a staging block is), into reused
// pageable memory, into fresh memory populated by the kernel up front, through one pinned
// buffer (made once; the write waits on the read's event), and in chunks through a ring of
// pinned blocks (chunk k's write overlaps chunk k+1's read). Prints median wall ms and GB/s,
// the cost of pinning MIB once, and checks the moved bytes of every way.
void largeMove(const std::vector<cl_device_id>& gpus, unsigned mib, unsigned repeat) {
  cl_device_id devs[2] = {gpus[0], gpus[std::min<size_t>(1, gpus.size() - 1)]};
  const cl_uint ndev = devs[0] == devs[1] ? 1 : 2;
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, ndev, devs, nullptr, nullptr, &err);
  check(err, "clCreateContext (both)");
  const size_t bytes = size_t(mib) << 20;
  cl_command_queue q[2];
  cl_mem buf[2];
  for (unsigned d = 0; d < 2; ++d) {
    q[d] = clCreateCommandQueue(ctx, devs[d], 0, &err);
    check(err, "clCreateCommandQueue");
    buf[d] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    check(err, "clCreateBuffer");
  }
  auto pin = [&](size_t n) { return pinnedMemory(ctx, q[0], n); };
  double t0 = nowS();
  unsigned char* pinned = pin(bytes);
  std::printf("move %u MiB: pinning it once took %.2f ms\n", mib, (nowS() - t0) * 1e3);
  const size_t chunk = std::min<size_t>(bytes, 4u << 20);
  const unsigned ringBlocks = 4;
  t0 = nowS();
  std::vector<unsigned char*> ring;
  for (unsigned b = 0; b < ringBlocks; ++b) ring.push_back(pin(chunk));
  std::printf("move %u MiB: pinning a ring of %u x %zu MiB took %.2f ms\n", mib, ringBlocks, chunk >> 20,
              (nowS() - t0) * 1e3);
  std::vector<unsigned char> reused(bytes, 1);
  enum class Way { FreshPageable, ReusedPageable, Populated, Pinned, PinnedRing };
  const std::pair<Way, const char*> ways[] = {{Way::FreshPageable, "fresh pageable"},
                                              {Way::ReusedPageable, "reused pageable"},
                                              {Way::Populated, "fresh, MAP_POPULATE"},
                                              {Way::Pinned, "pinned, event"},
                                              {Way::PinnedRing, "4 MiB pinned ring, events"}};
  for (const auto& [way, name] : ways) {
    std::vector<double> ms;
    bool right = true;
    for (unsigned r = 0; r < repeat; ++r) {
      const cl_uint pattern = 0x01000193u * (r + 7) + unsigned(way);
      check(clEnqueueFillBuffer(q[0], buf[0], &pattern, sizeof pattern, 0, bytes, 0, nullptr, nullptr), "fill");
      check(clFinish(q[0]), "clFinish");
      const double start = nowS();
      if (way == Way::PinnedRing) {
        std::vector<cl_event> written(ringBlocks, nullptr);
        for (size_t off = 0, k = 0; off < bytes; off += chunk, ++k) {
          const size_t n = std::min(chunk, bytes - off);
          cl_event& reuse = written[k % ringBlocks];
          cl_event read;
          check(clEnqueueReadBuffer(q[0], buf[0], CL_FALSE, off, n, ring[k % ringBlocks], reuse ? 1 : 0,
                                    reuse ? &reuse : nullptr, &read),
                "read");
          if (reuse) clReleaseEvent(reuse);
          check(clEnqueueWriteBuffer(q[1], buf[1], CL_FALSE, off, n, ring[k % ringBlocks], 1, &read, &reuse), "write");
          clReleaseEvent(read);
          clFlush(q[0]);
          clFlush(q[1]);
        }
        check(clFinish(q[1]), "clFinish");
        for (cl_event e : written)
          if (e) clReleaseEvent(e);
      } else if (way == Way::Pinned) {
        cl_event read;
        check(clEnqueueReadBuffer(q[0], buf[0], CL_FALSE, 0, bytes, pinned, 0, nullptr, &read), "read");
        clFlush(q[0]);
        check(clEnqueueWriteBuffer(q[1], buf[1], CL_FALSE, 0, bytes, pinned, 1, &read, nullptr), "write");
        clReleaseEvent(read);
        check(clFinish(q[1]), "clFinish");
      } else {
        unsigned char* host = reused.data();
        if (way == Way::FreshPageable) host = static_cast<unsigned char*>(std::aligned_alloc(4096, bytes));
        if (way == Way::Populated)
          host = static_cast<unsigned char*>(
              mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0));
        check(clEnqueueReadBuffer(q[0], buf[0], CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "read");
        check(clEnqueueWriteBuffer(q[1], buf[1], CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "write");
        if (way == Way::FreshPageable) std::free(host);
        if (way == Way::Populated) munmap(host, bytes);
      }
      ms.push_back((nowS() - start) * 1e3);
      cl_uint got[2] = {0, 0};
      check(clEnqueueReadBuffer(q[1], buf[1], CL_TRUE, 0, 4, &got[0], 0, nullptr, nullptr), "check");
      check(clEnqueueReadBuffer(q[1], buf[1], CL_TRUE, bytes - 4, 4, &got[1], 0, nullptr, nullptr), "check");
      right = right && got[0] == pattern && got[1] == pattern;
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("move %u MiB %-28s %8.2f ms  %6.2f GB/s  (min %.2f)  %s\n", mib, name, median,
                double(bytes) / median / 1e6, ms.front(), right ? "right" : "WRONG");
  }
}

} // namespace

int main(int argc, char** argv) {
  unsigned mib = 64, repeat = 5, hops = 0, move = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--mib")) mib = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--repeat")) repeat = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--hops")) hops = unsigned(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--move")) move = unsigned(std::atoi(argv[i + 1]));
  }
  const size_t bytes = size_t(mib) << 20, half = bytes / 2;

  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  std::vector<cl_device_id> gpus; // (no GPU anywhere: the first platform's devices, for a smoke run)
  for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) {
    for (auto p : ids) {
      cl_uint n = 0;
      if (clGetDeviceIDs(p, type, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
      gpus.resize(n);
      check(clGetDeviceIDs(p, type, n, gpus.data(), nullptr), "clGetDeviceIDs");
      break;
    }
    if (!gpus.empty()) break;
  }
  if (gpus.empty()) {
    std::fprintf(stderr, "split-read: no device\n");
    return 2;
  }
  if (move) {
    largeMove(gpus, move, repeat);
    return 0;
  }
  Side sides[2];
  for (unsigned s = 0; s < 2; ++s) {
    Side& side = sides[s];
    side.device = gpus[std::min<size_t>(s, gpus.size() - 1)];
    cl_int err;
    side.context = clCreateContext(nullptr, 1, &side.device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    side.queue = clCreateCommandQueue(side.context, side.device, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    side.half = clCreateBuffer(side.context, CL_MEM_READ_WRITE, half, nullptr, &err);
    check(err, "clCreateBuffer");
    const cl_uint pattern = 0x01010101u * (s + 1);
    check(clEnqueueFillBuffer(side.queue, side.half, &pattern, sizeof pattern, 0, half, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    check(clFinish(side.queue), "clFinish");
  }
  std::printf("split-read: %u MiB, %zu device(s)%s\n", mib, gpus.size(), gpus.size() < 2 ? " (used twice)" : "");

  std::vector<unsigned char> dst(bytes, 0); // pageable and touched, as an application's array
  cl_int err;
  cl_mem pinned = clCreateBuffer(sides[0].context, CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
  check(err, "clCreateBuffer (pinned)");
  auto* staging = static_cast<unsigned char*>(clEnqueueMapBuffer(
      sides[0].queue, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err));
  check(err, "clEnqueueMapBuffer");

  double longestCopy = 0;
  auto nonblocking = [&](unsigned s, size_t offset, size_t size, void* to, cl_event* e) {
    check(clEnqueueReadBuffer(sides[s].queue, sides[s].half, CL_FALSE, offset, size, to, 0, nullptr, e),
          "clEnqueueReadBuffer");
  };
  // A blocking read of side s's half into the destination's half `to`.
  auto blocking = [&](unsigned s, unsigned to, cl_event* e) {
    check(clEnqueueReadBuffer(sides[s].queue, sides[s].half, CL_TRUE, 0, half, dst.data() + to * half, 0, nullptr, e),
          "clEnqueueReadBuffer (blocking)");
  };
  // Keeps the two reads' profiled time (their sum when one ran after the other) and lets go.
  auto keep = [&](cl_event(&e)[2], bool serial) {
    longestCopy = serial ? profiledMs(e[0]) + profiledMs(e[1]) : std::max(profiledMs(e[0]), profiledMs(e[1]));
    clReleaseEvent(e[0]);
    clReleaseEvent(e[1]);
  };
  auto waitAll = [&](std::vector<cl_event>& events) {
    for (auto& side : sides) clFlush(side.queue);
    for (auto e : events) check(clWaitForEvents(1, &e), "clWaitForEvents");
    longestCopy = 0;
    for (auto e : events) {
      longestCopy = std::max(longestCopy, profiledMs(e));
      clReleaseEvent(e);
    }
    events.clear();
  };
  const std::vector<std::pair<std::string, std::function<void()>>> ways = {
      {"one device, one blocking read of the whole size",
       [&] {
         // (both halves from side 0's buffer: the size of a direct read of the whole)
         cl_event e[2];
         blocking(0, 0, &e[0]);
         blocking(0, 1, &e[1]);
         keep(e, true);
       }},
      {"two devices, non-blocking reads, then wait (clsplit today)",
       [&] {
         std::vector<cl_event> events(2);
         nonblocking(0, 0, half, dst.data(), &events[0]);
         nonblocking(1, 0, half, dst.data() + half, &events[1]);
         waitAll(events);
       }},
      {"two devices, non-blocking reads, then polling their status",
       [&] {
         std::vector<cl_event> events(2);
         nonblocking(0, 0, half, dst.data(), &events[0]);
         nonblocking(1, 0, half, dst.data() + half, &events[1]);
         for (auto& side : sides) clFlush(side.queue);
         for (auto e : events) {
           cl_int status = CL_QUEUED;
           while (status > CL_COMPLETE) {
             check(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
                   "clGetEventInfo");
             std::this_thread::sleep_for(std::chrono::microseconds(50));
           }
         }
         waitAll(events);
       }},
      {"two devices, blocking reads one after the other",
       [&] {
         cl_event e[2];
         blocking(0, 0, &e[0]);
         blocking(1, 1, &e[1]);
         keep(e, false);
       }},
      {"two devices, blocking reads from two threads",
       [&] {
         cl_event e[2];
         std::thread other([&] { blocking(1, 1, &e[1]); });
         blocking(0, 0, &e[0]);
         other.join();
         keep(e, false);
       }},
      {"two devices, non-blocking reads into pinned memory, then memcpy",
       [&] {
         std::vector<cl_event> events(2);
         nonblocking(0, 0, half, staging, &events[0]);
         nonblocking(1, 0, half, staging + half, &events[1]);
         waitAll(events);
         std::memcpy(dst.data(), staging, bytes);
       }},
      {"two devices, non-blocking reads in 4 MiB pieces, then wait",
       [&] {
         std::vector<cl_event> events;
         const size_t piece = size_t(4) << 20;
         for (size_t off = 0; off < half; off += piece)
           for (unsigned s = 0; s < 2; ++s) {
             cl_event e;
             nonblocking(s, off, std::min(piece, half - off), dst.data() + s * half + off, &e);
             events.push_back(e);
           }
         waitAll(events);
       }},
  };
  for (const auto& [name, run] : ways) {
    std::vector<double> ms;
    run(); // warm-up
    for (unsigned r = 0; r < repeat; ++r) {
      const double t0 = nowS();
      run();
      ms.push_back((nowS() - t0) * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    // The bytes of each half must be what its device holds.
    const bool ok = dst[0] == 1 && dst[half - 1] == 1 && dst[half] == (name.rfind("one", 0) == 0 ? 1 : 2);
    std::printf("%-66s %8.2f ms (longest profiled copy %6.2f ms)%s\n", name.c_str(), ms[ms.size() / 2], longestCopy,
                ok ? "" : "  WRONG BYTES");
  }
  if (hops) haloHops(gpus, hops);
  return 0;
}
