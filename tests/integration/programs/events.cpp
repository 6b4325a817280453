// Events: queries, reference counts, waiting, callbacks (on commands and user events, before
// and after completion), user events gating commands, in-order semantics across unrelated
// commands, markers, barriers with and without wait lists, failed user events, and profiling.
// (PoCL 3.1 does not implement clEnqueueWaitForEvents: the in-process API test covers it.)
#include "itest.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace itest;

static const char* kSource = R"CLC(
kernel void inc(global int* a, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 2 + k;
}
)CLC";

constexpr size_t n = 1024, kBytes = n * sizeof(int);

namespace {

struct CallbackLog {
  std::atomic<int> calls{0};
  std::atomic<int> lastStatus{99};
};

void CL_CALLBACK record(cl_event, cl_int status, void* data) {
  auto* log = static_cast<CallbackLog*>(data);
  log->lastStatus = status;
  ++log->calls;
}

// Callbacks may run on another thread after the event completes: wait a bounded time.
bool waitForCalls(const CallbackLog& log, int calls) {
  for (int i = 0; i < 500 && log.calls.load() < calls; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return log.calls.load() == calls;
}

cl_int status(cl_event e) {
  cl_int s = 99;
  CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr));
  return s;
}

cl_ulong profile(cl_event e, cl_profiling_info what) {
  cl_ulong v = 0;
  CHECK(clGetEventProfilingInfo(e, what, sizeof v, &v, nullptr));
  return v;
}

// A context of its own, with a queue, the program, its kernel and one buffer: after a command is
// terminated the specification leaves the state of its queue and context to the implementation.
struct Isolated {
  Isolated(cl_device_id device, std::vector<int>& init) {
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    CHECK(err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    const char* src = kSource;
    program = clCreateProgramWithSource(context, 1, &src, nullptr, &err);
    CHECK(clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr));
    kernel = clCreateKernel(program, "inc", &err);
    CHECK(err);
    buffer = createBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());
  }
  ~Isolated() {
    CHECK(clReleaseMemObject(buffer));
    CHECK(clReleaseKernel(kernel));
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
  }
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem buffer = nullptr;
};

} // namespace

int main() {
  Env env = setup(CL_QUEUE_PROFILING_ENABLE);
  cl_program program = buildProgram(env, kSource);
  cl_kernel kernel = createKernel(program, "inc");
  std::vector<int> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = static_cast<int>(i);
  cl_mem a = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());
  cl_mem b = createBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, init.data());
  auto launch = [&](cl_mem buffer, int k, cl_uint waits, const cl_event* list, cl_event* event) {
    SET_ARG(kernel, 0, buffer);
    SET_ARG(kernel, 1, k);
    CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, nullptr, &n, nullptr, waits, list, event));
  };
  std::vector<int> out(n);

  // 1. Queries and reference counts of a command event.
  {
    cl_event e = nullptr;
    launch(a, 1, 0, nullptr, &e);
    CHECK(clWaitForEvents(1, &e));
    expect(status(e) == CL_COMPLETE, "kernel event complete after clWaitForEvents");
    cl_command_type type = 0;
    cl_command_queue queue = nullptr;
    cl_context context = nullptr;
    cl_uint refs = 0;
    CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr));
    CHECK(clGetEventInfo(e, CL_EVENT_CONTEXT, sizeof context, &context, nullptr));
    expect(type == CL_COMMAND_NDRANGE_KERNEL, "CL_EVENT_COMMAND_TYPE");
    expect(queue == env.queue, "CL_EVENT_COMMAND_QUEUE");
    expect(context == env.context, "CL_EVENT_CONTEXT");
    CHECK(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
    cl_uint before = refs; // implementations may hold references of their own
    CHECK(clRetainEvent(e));
    CHECK(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
    expect(refs == before + 1, "clRetainEvent adds one reference");
    CHECK(clReleaseEvent(e));
    CHECK(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
    expect(refs == before, "clReleaseEvent removes it");
    CHECK(clReleaseEvent(e));
  }

  // 2. A user event gates a write and a kernel; callbacks on every state; in-order semantics
  //    make an unrelated later command wait too.
  {
    cl_event user = clCreateUserEvent(env.context, nullptr);
    expect(user != nullptr, "clCreateUserEvent");
    expect(status(user) == CL_SUBMITTED, "a new user event is CL_SUBMITTED");
    cl_command_type type = 0;
    cl_command_queue queue = reinterpret_cast<cl_command_queue>(1);
    CHECK(clGetEventInfo(user, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    CHECK(clGetEventInfo(user, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr));
    expect(type == CL_COMMAND_USER && queue == nullptr, "user event type and queue");
    CallbackLog onUser;
    CHECK(clSetEventCallback(user, CL_COMPLETE, record, &onUser));

    std::vector<int> fresh(n);
    for (size_t i = 0; i < n; ++i) fresh[i] = static_cast<int>(5 * i + 3);
    cl_event write = nullptr, run = nullptr, read = nullptr, later = nullptr;
    CHECK(clEnqueueWriteBuffer(env.queue, a, CL_FALSE, 0, kBytes, fresh.data(), 1, &user, &write));
    launch(a, 7, 0, nullptr, &run);
    CallbackLog onComplete, onSubmitted, onRunning;
    CHECK(clSetEventCallback(run, CL_COMPLETE, record, &onComplete));
    CHECK(clSetEventCallback(run, CL_SUBMITTED, record, &onSubmitted));
    CHECK(clSetEventCallback(run, CL_RUNNING, record, &onRunning));
    CHECK(clEnqueueReadBuffer(env.queue, a, CL_FALSE, 0, kBytes, out.data(), 0, nullptr, &read));
    std::vector<int> other(n, -1);
    CHECK(clEnqueueReadBuffer(env.queue, b, CL_FALSE, 0, kBytes, other.data(), 0, nullptr, &later));
    CHECK(clFlush(env.queue));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    expect(status(write) > CL_COMPLETE, "gated write not complete before the user event");
    expect(status(run) > CL_COMPLETE, "kernel after the gated write not complete");
    expect(status(read) > CL_COMPLETE, "read after the kernel not complete");
    expect(status(later) > CL_COMPLETE, "unrelated read later in the in-order queue not complete");
    expect(onComplete.calls.load() == 0, "no CL_COMPLETE callback yet");
    CHECK(clSetUserEventStatus(user, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &read));
    CHECK(clWaitForEvents(1, &later));
    printChecksum("read after gated write and kernel", out);
    printChecksum("unrelated read", other);
    expect(waitForCalls(onComplete, 1) && onComplete.lastStatus == CL_COMPLETE, "CL_COMPLETE callback");
    expect(waitForCalls(onSubmitted, 1) && onSubmitted.lastStatus == CL_SUBMITTED, "CL_SUBMITTED callback");
    expect(waitForCalls(onRunning, 1) && onRunning.lastStatus == CL_RUNNING, "CL_RUNNING callback");
    expect(waitForCalls(onUser, 1) && onUser.lastStatus == CL_COMPLETE, "callback on the user event");
    CallbackLog afterwards;
    CHECK(clSetEventCallback(run, CL_COMPLETE, record, &afterwards));
    expect(waitForCalls(afterwards, 1), "callback registered after completion is called");
    expectCode(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION, "setting a user event twice");
    expectCode(clSetUserEventStatus(run, CL_COMPLETE), CL_INVALID_EVENT, "setting a command event's status");
    for (cl_event e : {user, write, run, read, later}) CHECK(clReleaseEvent(e));
  }

  // 3. A blocking read of an unrelated buffer after a gated kernel: in order, it returns only
  //    after the kernel, hence after the user event (set by another thread).
  {
    cl_event user = clCreateUserEvent(env.context, nullptr);
    launch(a, 1, 1, &user, nullptr);
    std::atomic<bool> released{false};
    std::thread setter([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      released = true;
      clSetUserEventStatus(user, CL_COMPLETE);
    });
    CHECK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    expect(released.load(), "blocking read returned after the gated kernel ran");
    setter.join();
    CHECK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    printChecksum("a after the gated kernel", out);
    CHECK(clReleaseEvent(user));
  }

  // 4. Markers and barriers.
  {
    cl_event user = clCreateUserEvent(env.context, nullptr);
    cl_event run = nullptr, marker = nullptr, marker2 = nullptr, barrier = nullptr;
    launch(b, 3, 1, &user, &run);
    CHECK(clEnqueueMarker(env.queue, &marker));
    CHECK(clEnqueueMarkerWithWaitList(env.queue, 1, &run, &marker2));
    CHECK(clEnqueueBarrierWithWaitList(env.queue, 0, nullptr, &barrier));
    launch(b, 4, 0, nullptr, nullptr);
    CHECK(clFlush(env.queue));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    expect(status(marker) > CL_COMPLETE, "marker waits for the gated kernel");
    expect(status(marker2) > CL_COMPLETE, "marker with a wait list waits");
    expect(status(barrier) > CL_COMPLETE, "barrier waits");
    CHECK(clSetUserEventStatus(user, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &barrier));
    cl_command_type type = 0;
    CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    expect(type == CL_COMMAND_MARKER, "marker event type");
    CHECK(clGetEventInfo(barrier, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    expect(type == CL_COMMAND_BARRIER, "barrier event type");
    expect(status(marker) == CL_COMPLETE && status(marker2) == CL_COMPLETE, "markers complete");

    cl_event user2 = clCreateUserEvent(env.context, nullptr);
    CHECK(clEnqueueBarrierWithWaitList(env.queue, 1, &user2, nullptr));
    cl_event after = nullptr;
    launch(b, 5, 0, nullptr, &after);
    CHECK(clEnqueueBarrier(env.queue));
    cl_event read = nullptr;
    CHECK(clEnqueueReadBuffer(env.queue, b, CL_FALSE, 0, kBytes, out.data(), 0, nullptr, &read));
    CHECK(clFlush(env.queue));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    expect(status(after) > CL_COMPLETE, "kernel after a barrier with a wait list waits");
    CHECK(clSetUserEventStatus(user2, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &read));
    printChecksum("b after markers and barriers", out);
    for (cl_event e : {user, run, marker, marker2, barrier, user2, after, read}) CHECK(clReleaseEvent(e));
  }

  // 5. Profiling: every event's four times are ordered; dependent commands are ordered.
  {
    cl_event w = nullptr, k1 = nullptr, k2 = nullptr, c = nullptr, r = nullptr, m = nullptr;
    CHECK(clEnqueueWriteBuffer(env.queue, a, CL_FALSE, 0, kBytes, init.data(), 0, nullptr, &w));
    launch(a, 2, 0, nullptr, &k1);
    launch(a, 3, 0, nullptr, &k2);
    CHECK(clEnqueueCopyBuffer(env.queue, a, b, 0, 0, kBytes, 0, nullptr, &c));
    CHECK(clEnqueueReadBuffer(env.queue, b, CL_FALSE, 0, kBytes, out.data(), 0, nullptr, &r));
    CHECK(clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, &m));
    CHECK(clFinish(env.queue));
    printChecksum("b after profiled commands", out);
    cl_event all[] = {w, k1, k2, c, r, m};
    const char* names[] = {"write", "kernel 1", "kernel 2", "copy", "read", "marker"};
    cl_ulong previousEnd = 0;
    for (int i = 0; i < 6; ++i) {
      cl_ulong q = profile(all[i], CL_PROFILING_COMMAND_QUEUED), s = profile(all[i], CL_PROFILING_COMMAND_SUBMIT),
               st = profile(all[i], CL_PROFILING_COMMAND_START), e = profile(all[i], CL_PROFILING_COMMAND_END);
      std::string what = std::string(names[i]) + ": QUEUED <= SUBMIT <= START <= END";
      expect(q <= s && s <= st && st <= e && q > 0, what.c_str());
      if (i >= 1 && i <= 4) {
        what = std::string(names[i]) + " ends after the command it depends on";
        expect(e >= previousEnd, what.c_str());
        if (e < previousEnd)
          std::printf("  (queued %llu submit %llu start %llu end %llu; the previous command ended at %llu)\n",
                      (unsigned long long)q, (unsigned long long)s, (unsigned long long)st, (unsigned long long)e,
                      (unsigned long long)previousEnd);
      }
      previousEnd = e;
    }
    cl_ulong v = 0;
    expectCode(clGetEventProfilingInfo(w, CL_PROFILING_COMMAND_QUEUED, 4, &v, nullptr), CL_INVALID_VALUE,
               "profiling value into 4 bytes");
    cl_event user = clCreateUserEvent(env.context, nullptr);
    CHECK(clSetUserEventStatus(user, CL_COMPLETE));
    expectCode(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_QUEUED, sizeof v, &v, nullptr),
               CL_PROFILING_INFO_NOT_AVAILABLE, "profiling a user event");
    for (cl_event e : all) CHECK(clReleaseEvent(e));
    CHECK(clReleaseEvent(user));

    cl_command_queue plain = clCreateCommandQueue(env.context, env.device, 0, nullptr);
    cl_event e = nullptr;
    CHECK(clEnqueueReadBuffer(plain, b, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, &e));
    expectCode(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof v, &v, nullptr),
               CL_PROFILING_INFO_NOT_AVAILABLE, "profiling without CL_QUEUE_PROFILING_ENABLE");
    CHECK(clReleaseEvent(e));
    CHECK(clReleaseCommandQueue(plain));
  }

  // 6. Waiting on events of several queues at once.
  {
    cl_command_queue second = clCreateCommandQueue(env.context, env.device, 0, nullptr);
    cl_event e[2] = {nullptr, nullptr};
    launch(a, 1, 0, nullptr, &e[0]);
    SET_ARG(kernel, 0, b);
    SET_ARG(kernel, 1, 2);
    CHECK(clEnqueueNDRangeKernel(second, kernel, 1, nullptr, &n, nullptr, 1, &e[0], &e[1]));
    CHECK(clWaitForEvents(2, e));
    expect(status(e[0]) == CL_COMPLETE && status(e[1]) == CL_COMPLETE, "events of two queues complete");
    std::vector<int> outB(n);
    CHECK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(second, b, CL_TRUE, 0, kBytes, outB.data(), 0, nullptr, nullptr));
    printChecksum("a", out);
    printChecksum("b", outB);
    for (cl_event x : e) CHECK(clReleaseEvent(x));
    CHECK(clReleaseCommandQueue(second));
  }

  // 7. A failed user event, in a context of its own: the command waiting on it reports an
  //    error, and waiting on it returns.
  {
    Isolated own(env.device, init);
    cl_event user = clCreateUserEvent(own.context, nullptr);
    cl_event run = nullptr;
    SET_ARG(own.kernel, 0, own.buffer);
    SET_ARG(own.kernel, 1, 9);
    CHECK(clEnqueueNDRangeKernel(own.queue, own.kernel, 1, nullptr, &n, nullptr, 1, &user, &run));
    CHECK(clFlush(own.queue));
    CHECK(clSetUserEventStatus(user, -1234));
    cl_int err = clWaitForEvents(1, &run);
    expectCode(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "waiting on a command whose wait list failed");
    expect(status(run) < 0, "the command's status is negative");
    CHECK(clReleaseEvent(user));
    CHECK(clReleaseEvent(run));
  }

  // 8. Two launches on one in-order queue, each waiting on a user event that then fails (the
  //    conformance suite's `userevents`): both report the failure, and clFinish returns. clsplit
  //    once enqueued such commands on PoCL without events, which aborts PoCL 3.1 and 5
  //    (pocl_update_event_failed) when the second follows the first.
  {
    Isolated own(env.device, init);
    cl_event user = clCreateUserEvent(own.context, nullptr);
    cl_event runs[2] = {nullptr, nullptr};
    SET_ARG(own.kernel, 0, own.buffer);
    SET_ARG(own.kernel, 1, 5);
    for (cl_event& run : runs)
      CHECK(clEnqueueNDRangeKernel(own.queue, own.kernel, 1, nullptr, &n, nullptr, 1, &user, &run));
    CHECK(clFlush(own.queue));
    CHECK(clSetUserEventStatus(user, -77));
    clFinish(own.queue); // its status after a failed command is the implementation's
    for (cl_event run : runs) {
      expectCode(clWaitForEvents(1, &run), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                 "waiting on a launch whose wait list failed");
      expect(status(run) < 0, "the launch's status is negative");
      CHECK(clReleaseEvent(run));
    }
    CHECK(clReleaseEvent(user));
  }

  CHECK(clReleaseMemObject(a));
  CHECK(clReleaseMemObject(b));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  env.release();
  return finish();
}
