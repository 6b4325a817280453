// Shared virtual memory as an OpenCL 2.0 program uses it: coarse- and fine-grained allocations,
// maps, copies and fills of SVM, kernels given SVM pointers as arguments and through
// clSetKernelExecInfo (a linked list the kernel walks), next to buffers written by kernels that
// split, buffers made on SVM memory, and clEnqueueSVMFree with a callback. Through clsplit the
// kernels that use SVM run whole on one device while the others split; the output must match.
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include "itest.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace itest;

namespace {

const char* kSource = R"CLC(
typedef struct Node { __global struct Node* next; int value; } Node;

// Writes a buffer: splits through clsplit.
__kernel void init(__global float* b) {
  size_t i = get_global_id(0);
  b[i] = (float)(i % 97) * 0.5f;
}

// An SVM argument and a buffer argument.
__kernel void scale(__global float* svm, __global const float* b, float k) {
  size_t i = get_global_id(0);
  svm[i] = svm[i] * k + b[i];
}

// Reads SVM, writes a buffer the next (split) kernel reads.
__kernel void toBuffer(__global const float* svm, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = svm[i] + 1.0f;
}

__kernel void twice(__global float* b) {
  size_t i = get_global_id(0);
  b[i] = b[i] * 2.0f;
}

// The list's heads come through a buffer: the kernel reaches SVM only through pointers it reads,
// which clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS) names.
__kernel void walk(__global const ulong* heads, __global int* sums) {
  size_t i = get_global_id(0);
  __global const Node* n = (__global const Node*)heads[i];
  int sum = 0;
  while (n) {
    sum += n->value;
    n = n->next;
  }
  sums[i] = sum;
}

// Fine-grained SVM: the host writes and reads it without maps.
__kernel void addIndex(__global int* v) {
  size_t i = get_global_id(0);
  v[i] += (int)i;
}
)CLC";

struct Node {
  Node* next;
  cl_int value;
};

cl_command_queue gFreedQueue = nullptr;
cl_uint gFreedCount = 0;
void CL_CALLBACK freed(cl_command_queue queue, cl_uint count, void* pointers[], void* data) {
  gFreedQueue = queue;
  gFreedCount = count;
  auto* context = static_cast<cl_context*>(data);
  for (cl_uint i = 0; i < count; ++i) clSVMFree(*context, pointers[i]);
}

} // namespace

int main() {
  Env env = setup();
  cl_device_svm_capabilities caps = 0;
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, nullptr));
  std::printf("svm: coarse %d fine-buffer %d atomics %d\n", !!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER),
              !!(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER), !!(caps & CL_DEVICE_SVM_ATOMICS));
  if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
    std::printf("no SVM\n");
    env.release();
    return finish();
  }

  // OpenCL C 3.0 where the device compiles it (PoCL 5 offers no 2.0), else 2.0, else the
  // device's default (a 1.2 compiler with an OpenCL 1.2 device beside: pointers are pointers).
  size_t versionsSize = 0;
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &versionsSize));
  std::vector<cl_name_version> versions(versionsSize / sizeof(cl_name_version));
  CHECK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, versionsSize, versions.data(), nullptr));
  unsigned major = 1;
  for (const auto& v : versions) major = std::max(major, unsigned(CL_VERSION_MAJOR(v.version)));
  cl_program program = buildProgram(env, kSource, major >= 3 ? "-cl-std=CL3.0" : major == 2 ? "-cl-std=CL2.0" : "");
  cl_kernel init = createKernel(program, "init");
  cl_kernel scale = createKernel(program, "scale");
  cl_kernel toBuffer = createKernel(program, "toBuffer");
  cl_kernel twice = createKernel(program, "twice");
  cl_kernel walk = createKernel(program, "walk");
  cl_kernel addIndex = createKernel(program, "addIndex");

  constexpr size_t n = 1 << 14;
  const size_t global = n;
  const size_t local = 64;

  // 1. Coarse-grained SVM filled through a map, scaled by a kernel with a buffer another kernel
  //    (split) wrote; then copied, filled and read through maps.
  auto* a = static_cast<float*>(clSVMAlloc(env.context, CL_MEM_READ_WRITE, n * sizeof(float), 0));
  expect(a != nullptr, "clSVMAlloc (coarse)");
  if (!a) return finish();
  CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, a, n * sizeof(float), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<float>(i % 13);
  CHECK(clEnqueueSVMUnmap(env.queue, a, 0, nullptr, nullptr));

  cl_mem b = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(float));
  CHECK(clSetKernelArg(init, 0, sizeof b, &b));
  CHECK(clEnqueueNDRangeKernel(env.queue, init, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  const float k = 3.0f;
  CHECK(clSetKernelArgSVMPointer(scale, 0, a));
  CHECK(clSetKernelArg(scale, 1, sizeof b, &b));
  CHECK(clSetKernelArg(scale, 2, sizeof k, &k));
  CHECK(clEnqueueNDRangeKernel(env.queue, scale, 1, nullptr, &global, &local, 0, nullptr, nullptr));

  auto* copy = static_cast<float*>(clSVMAlloc(env.context, CL_MEM_READ_WRITE, n * sizeof(float), 0));
  expect(copy != nullptr, "clSVMAlloc (copy)");
  if (!copy) return finish();
  cl_event copied = nullptr;
  CHECK(clEnqueueSVMMemcpy(env.queue, CL_FALSE, copy, a, n * sizeof(float), 0, nullptr, &copied));
  const float seven = 7.0f;
  CHECK(clEnqueueSVMMemFill(env.queue, copy + n / 2, &seven, sizeof seven, n / 4 * sizeof(float), 1, &copied, nullptr));
  CHECK(clReleaseEvent(copied));
  CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, a, n * sizeof(float), 0, nullptr, nullptr));
  printChecksum("scaled", a, n * sizeof(float));
  std::printf("scaled[5] %.1f scaled[100] %.1f\n", a[5], a[100]);
  CHECK(clEnqueueSVMUnmap(env.queue, a, 0, nullptr, nullptr));
  CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, copy, n * sizeof(float), 0, nullptr, nullptr));
  printChecksum("copied and filled", copy, n * sizeof(float));
  CHECK(clEnqueueSVMUnmap(env.queue, copy, 0, nullptr, nullptr));

  // 2. A kernel reads SVM into a buffer; a split kernel then works on the buffer; the host reads it.
  cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(float));
  CHECK(clSetKernelArgSVMPointer(toBuffer, 0, copy));
  CHECK(clSetKernelArg(toBuffer, 1, sizeof out, &out));
  CHECK(clEnqueueNDRangeKernel(env.queue, toBuffer, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clSetKernelArg(twice, 0, sizeof out, &out));
  CHECK(clEnqueueNDRangeKernel(env.queue, twice, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<float> host(n);
  CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  printChecksum("through a buffer", host);

  // 3. One argument a buffer, then an SVM pointer, then the same buffer again (the real kernel's
  //    argument is bound anew), then an SVM pointer into the middle of an allocation.
  //    NVIDIA's OpenCL (coarse-grained SVM only) fails a launch whose argument went from an SVM
  //    pointer back to a buffer (CL_INVALID_KERNEL_ARGS) and does not make a buffer on SVM memory
  //    that memory (below): those parts run where SVM is host memory (fine-grained buffers).
  // ITEST_SVM_ALL=1 runs them anyway (to check clsplit's ordering on such a device by hand: the
  // program checks those results itself).
  const bool hostSvm = (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) || std::getenv("ITEST_SVM_ALL");
  cl_kernel rebind = createKernel(program, "toBuffer");
  CHECK(clSetKernelArg(rebind, 0, sizeof b, &b));
  CHECK(clSetKernelArg(rebind, 1, sizeof out, &out));
  CHECK(clEnqueueNDRangeKernel(env.queue, rebind, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  printChecksum("buffer", host);
  CHECK(clSetKernelArgSVMPointer(rebind, 0, copy));
  CHECK(clEnqueueNDRangeKernel(env.queue, rebind, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  printChecksum("SVM after the buffer", host);
  if (hostSvm) { // into a buffer of its own: what follows reads `out` alike everywhere
    cl_mem again = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(float));
    CHECK(clSetKernelArg(rebind, 0, sizeof b, &b));
    CHECK(clSetKernelArg(rebind, 1, sizeof again, &again));
    CHECK(clEnqueueNDRangeKernel(env.queue, rebind, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, again, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
    printChecksum("the buffer again", host);
    CHECK(clReleaseMemObject(again));
  }
  const size_t half = n / 2;
  CHECK(clSetKernelArgSVMPointer(toBuffer, 0, a + n / 2));
  CHECK(clEnqueueNDRangeKernel(env.queue, toBuffer, 1, nullptr, &half, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
  printChecksum("second half", host);

  // Host memory between buffer commands and SVM commands of one queue, none blocking: a read of
  // a buffer into host memory, then an SVM copy from that memory; an SVM copy into host memory,
  // then a write of a buffer from it. The queue is in order: each sees the other's bytes.
  // NVIDIA's OpenCL reads pageable source memory when such a command is enqueued, whatever is
  // queued before it (run directly on an H200 both copies took stale bytes, differently from run
  // to run): this part runs where SVM is host memory.
  if (hostSvm) {
    std::vector<float> staged(n), back(n);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_FALSE, 0, n * sizeof(float), staged.data(), 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMemcpy(env.queue, CL_FALSE, copy, staged.data(), n * sizeof(float), 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMemcpy(env.queue, CL_FALSE, back.data(), a, n * sizeof(float), 0, nullptr, nullptr));
    cl_mem fromHost = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(float));
    CHECK(clEnqueueWriteBuffer(env.queue, fromHost, CL_FALSE, 0, n * sizeof(float), back.data(), 0, nullptr, nullptr));
    CHECK(clSetKernelArg(twice, 0, sizeof fromHost, &fromHost));
    CHECK(clEnqueueNDRangeKernel(env.queue, twice, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, fromHost, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
    printChecksum("SVM copied to the host, written to a buffer, doubled", host);
    std::vector<float> outNow(n);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(float), outNow.data(), 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, a, n * sizeof(float), 0, nullptr, nullptr));
    bool doubled = true;
    for (size_t i = 0; i < n; ++i) doubled = doubled && host[i] == 2.0f * a[i];
    expect(doubled, "a buffer written from host memory an SVM copy filled holds the copy's bytes");
    CHECK(clEnqueueSVMUnmap(env.queue, a, 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, copy, n * sizeof(float), 0, nullptr, nullptr));
    printChecksum("a buffer read to the host, copied to SVM", copy, n * sizeof(float));
    expect(std::memcmp(copy, outNow.data(), n * sizeof(float)) == 0,
           "SVM copied from host memory a buffer's read filled holds the buffer's bytes");
    CHECK(clEnqueueSVMUnmap(env.queue, copy, 0, nullptr, nullptr));
    CHECK(clReleaseMemObject(fromHost));
  }

  // 4. A linked list in SVM, reached only through pointers the kernel reads from a buffer.
  constexpr size_t lists = 256, nodesPerList = 8;
  auto* nodes = static_cast<Node*>(clSVMAlloc(env.context, CL_MEM_READ_WRITE, lists * nodesPerList * sizeof(Node), 0));
  expect(nodes != nullptr, "clSVMAlloc (nodes)");
  if (!nodes) return finish();
  CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, nodes, lists * nodesPerList * sizeof(Node),
                        0, nullptr, nullptr));
  std::vector<cl_ulong> heads(lists);
  for (size_t l = 0; l < lists; ++l) {
    for (size_t j = 0; j < nodesPerList; ++j) {
      Node& node = nodes[l * nodesPerList + j];
      node.value = static_cast<cl_int>(l * 3 + j);
      node.next = j + 1 < nodesPerList ? &nodes[l * nodesPerList + j + 1] : nullptr;
    }
    heads[l] = reinterpret_cast<uintptr_t>(&nodes[l * nodesPerList]);
  }
  CHECK(clEnqueueSVMUnmap(env.queue, nodes, 0, nullptr, nullptr));
  cl_mem headBuffer =
      createBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, lists * sizeof(cl_ulong), heads.data());
  cl_mem sums = createBuffer(env.context, CL_MEM_READ_WRITE, lists * sizeof(cl_int));
  void* reached[] = {nodes};
  CHECK(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  CHECK(clSetKernelArg(walk, 0, sizeof headBuffer, &headBuffer));
  CHECK(clSetKernelArg(walk, 1, sizeof sums, &sums));
  const size_t listCount = lists;
  CHECK(clEnqueueNDRangeKernel(env.queue, walk, 1, nullptr, &listCount, &local, 0, nullptr, nullptr));
  std::vector<cl_int> sumsHost(lists);
  CHECK(clEnqueueReadBuffer(env.queue, sums, CL_TRUE, 0, lists * sizeof(cl_int), sumsHost.data(), 0, nullptr, nullptr));
  printInts("list sums", sumsHost.data(), 8);
  printChecksum("list sums", sumsHost);

  // 5. A buffer on SVM memory.
  cl_mem onSvm = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(float), copy);
  cl_bool usesSvm = CL_FALSE;
  CHECK(clGetMemObjectInfo(onSvm, CL_MEM_USES_SVM_POINTER, sizeof usesSvm, &usesSvm, nullptr));
  std::printf("buffer on SVM memory: CL_MEM_USES_SVM_POINTER %d\n", usesSvm);
  cl_bool usesNot = CL_TRUE;
  CHECK(clGetMemObjectInfo(out, CL_MEM_USES_SVM_POINTER, sizeof usesNot, &usesNot, nullptr));
  std::printf("other buffer: CL_MEM_USES_SVM_POINTER %d\n", usesNot);
  // Its bytes are the SVM's both ways: a kernel on the buffer (split through clsplit) then SVM
  // maps see its writes, an SVM fill then the buffer's kernel sees the fill; and a buffer
  // released right after its kernel (pyopencl's SVM.as_buffer) still leaves its writes there.
  if (hostSvm) {
    CHECK(clSetKernelArg(twice, 0, sizeof onSvm, &onSvm));
    CHECK(clEnqueueNDRangeKernel(env.queue, twice, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, copy, n * sizeof(float), 0, nullptr, nullptr));
    printChecksum("doubled through a buffer on SVM", copy, n * sizeof(float));
    std::printf("copy[1] %.1f copy[n/2] %.1f\n", copy[1], copy[n / 2]);
    CHECK(clEnqueueSVMUnmap(env.queue, copy, 0, nullptr, nullptr));
    const float one = 1.0f;
    CHECK(clEnqueueSVMMemFill(env.queue, copy, &one, sizeof one, n / 2 * sizeof(float), 0, nullptr, nullptr));
    CHECK(clEnqueueNDRangeKernel(env.queue, twice, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, onSvm, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr));
    printChecksum("filled, then doubled", host);
    std::printf("host[1] %.1f host[n/2] %.1f\n", host[1], host[n / 2]);
  }
  CHECK(clReleaseMemObject(onSvm));
  if (hostSvm) {
    for (int round = 0; round < 3; ++round) {
      cl_mem temporary = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(float), copy);
      CHECK(clSetKernelArg(twice, 0, sizeof temporary, &temporary));
      CHECK(clEnqueueNDRangeKernel(env.queue, twice, 1, nullptr, &global, &local, 0, nullptr, nullptr));
      CHECK(clReleaseMemObject(temporary));
      // An SVM command between two buffers on the same memory: what the first wrote is there
      // when the next is made (without one, clsplit's buffers would not see each other's writes:
      // docs/limitations.md).
      CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, copy, sizeof(float), 0, nullptr, nullptr));
      CHECK(clEnqueueSVMUnmap(env.queue, copy, 0, nullptr, nullptr));
    }
    CHECK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, copy, n * sizeof(float), 0, nullptr, nullptr));
    printChecksum("three times doubled through released buffers", copy, n * sizeof(float));
    std::printf("copy[1] %.1f copy[n/2] %.1f\n", copy[1], copy[n / 2]);
    CHECK(clEnqueueSVMUnmap(env.queue, copy, 0, nullptr, nullptr));
  }

  // 6. Fine-grained SVM, where the device has it: no maps.
  if (hostSvm) {
    auto* v = static_cast<cl_int*>(
        clSVMAlloc(env.context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, n * sizeof(cl_int), 0));
    expect(v != nullptr, "clSVMAlloc (fine-grained)");
    if (!v) return finish();
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<cl_int>(i % 7);
    CHECK(clSetKernelArgSVMPointer(addIndex, 0, v));
    CHECK(clEnqueueNDRangeKernel(env.queue, addIndex, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clFinish(env.queue));
    printChecksum("fine-grained", v, n * sizeof(cl_int));
    clSVMFree(env.context, v);
  }

  // 7. Freed by the queue, through a callback that gets the application's queue.
  void* toFree[] = {a, copy};
  cl_event freedEvent = nullptr;
  CHECK(clEnqueueSVMFree(env.queue, 2, toFree, freed, &env.context, 0, nullptr, &freedEvent));
  CHECK(clWaitForEvents(1, &freedEvent));
  cl_command_type type = 0;
  CHECK(clGetEventInfo(freedEvent, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  std::printf("clEnqueueSVMFree: callback with the queue %d, %u pointers, command type %#x\n", gFreedQueue == env.queue,
              gFreedCount, type);
  CHECK(clReleaseEvent(freedEvent));
  CHECK(clEnqueueSVMFree(env.queue, 1, reinterpret_cast<void**>(&nodes), nullptr, nullptr, 0, nullptr, nullptr));
  CHECK(clFinish(env.queue));

  for (cl_mem m : {b, out, headBuffer, sums}) CHECK(clReleaseMemObject(m));
  for (cl_kernel kernel : {init, scale, toBuffer, rebind, twice, walk, addIndex}) CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
