// Eventless commands (device/Enqueue.h) on a real PoCL queue: their fences complete, one marker
// serves all commands before it, and a marker is never left behind a command that waits on
// something the waiter itself may be needed for (no deadlock).
#include "device/Enqueue.h"
#include "device/DriverClock.h"
#include "device/RealCall.h"
#include "device/Vendors.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>
#include <vector>

using namespace clsplit::device;

namespace {

struct RealSetup {
  Vendors vendors = Vendors::load(std::getenv("CLSPLIT_VENDORS") ? std::getenv("CLSPLIT_VENDORS") : "");
  cl_device_id device = nullptr;
  RealContext context;
  RealQueue queue;
  RealMem buffer;
  static constexpr size_t kBytes = 1 << 16;

  RealSetup() {
    REQUIRE(!vendors.devices().empty());
    device = vendors.devices().front().handle;
    cl_int err = CL_SUCCESS;
    context = RealContext::adopt(
        invoke(device, &cl_icd_dispatch::clCreateContext, static_cast<const cl_context_properties*>(nullptr), 1u,
               &device, static_cast<void(CL_CALLBACK*)(const char*, const void*, size_t, void*)>(nullptr),
               static_cast<void*>(nullptr), &err));
    REQUIRE(err == CL_SUCCESS);
    queue = RealQueue::adopt(
        call(&cl_icd_dispatch::clCreateCommandQueue, context.get(), device, cl_command_queue_properties(0), &err));
    REQUIRE(err == CL_SUCCESS);
    buffer = RealMem::adopt(call(&cl_icd_dispatch::clCreateBuffer, context.get(), cl_mem_flags(CL_MEM_READ_WRITE),
                                 kBytes, static_cast<void*>(nullptr), &err));
    REQUIRE(err == CL_SUCCESS);
  }

  // Writes `value` over the whole buffer, after `waits`.
  FenceRef write(std::vector<unsigned char>& host, unsigned char value, bool timed,
                 const std::vector<FenceRef>& waits = {}) {
    host.assign(kBytes, value);
    WaitList wl(context.get(), queue.get());
    wl.add(waits);
    FenceRef fence;
    REQUIRE(enqueueCommand(
                queue.get(), context.get(), wl, timed,
                [&](cl_uint n, const cl_event* list, cl_event* event) {
                  return call(&cl_icd_dispatch::clEnqueueWriteBuffer, queue.get(), buffer.get(), cl_bool(CL_FALSE),
                              size_t(0), kBytes, static_cast<const void*>(host.data()), n, list, event);
                },
                fence) == CL_SUCCESS);
    return fence;
  }

  unsigned char readFirstByte() {
    unsigned char b = 0;
    REQUIRE(call(&cl_icd_dispatch::clEnqueueReadBuffer, queue.get(), buffer.get(), cl_bool(CL_TRUE), size_t(0),
                 size_t(1), static_cast<void*>(&b), 0u, static_cast<const cl_event*>(nullptr),
                 static_cast<cl_event*>(nullptr)) == CL_SUCCESS);
    return b;
  }
};

// Waits for `fence` on another thread; false if it did not complete within the limit.
bool completesWithin(const FenceRef& fence, std::chrono::seconds limit) {
  auto result = std::make_shared<std::promise<cl_int>>();
  auto done = result->get_future();
  std::thread([fence, result] { result->set_value(fence->wait()); }).detach(); // may never return
  return done.wait_for(limit) == std::future_status::ready && done.get() == CL_COMPLETE;
}

} // namespace

TEST_CASE("eventless commands complete, one marker serving the commands before it", "[enqueue]") {
  RealSetup s;
  std::vector<std::vector<unsigned char>> hosts(4);
  std::vector<FenceRef> fences;
  for (unsigned i = 0; i < hosts.size(); ++i)
    fences.push_back(s.write(hosts[i], static_cast<unsigned char>(i + 1), false));
  CHECK(fences[0]->queue() == s.queue.get());
  CHECK_FALSE(fences[0]->knownComplete()); // nothing asked yet: no marker, no driver query
  REQUIRE(fences[1]->wait() == CL_COMPLETE);
  // The marker enqueued for the second write stands for all four (they were all enqueued before
  // it): once it is known complete, so are they.
  for (auto& f : fences) CHECK(f->status() == CL_COMPLETE);
  for (auto& f : fences) CHECK(f->knownComplete());
  CHECK(s.readFirstByte() == 4);
}

TEST_CASE("a command with an event closes the eventless commands before it", "[enqueue]") {
  RealSetup s;
  std::vector<unsigned char> a, b;
  FenceRef eventless = s.write(a, 7, false);
  FenceRef timed = s.write(b, 8, true);
  CHECK(dynamic_cast<RealEventFence*>(timed.get()) != nullptr);
  REQUIRE(timed->wait() == CL_COMPLETE);
  CHECK(eventless->knownComplete()); // its completion is the evented command's
  CHECK(s.readFirstByte() == 8);
}

TEST_CASE("no marker is left behind a command waiting on a user event", "[enqueue]") {
  RealSetup s;
  std::vector<unsigned char> a, b;
  FenceRef first = s.write(a, 1, false);
  auto gate = std::make_shared<HostFence>(); // completed by us, like an application's user event
  FenceRef blocked = s.write(b, 2, false, {gate});
  // Were the marker for `first` enqueued now, behind `blocked`, it would wait for the gate.
  CHECK(completesWithin(first, std::chrono::seconds(20)));
  CHECK_FALSE(blocked->knownComplete());
  gate->complete(CL_COMPLETE);
  CHECK(completesWithin(blocked, std::chrono::seconds(20)));
  CHECK(s.readFirstByte() == 2);
}

TEST_CASE("a host fence lets go of its bridges when it completes", "[enqueue]") {
  // PoCL 3.1 ran a command it had freed when a failed user event it had terminated that command
  // for lived on (1 in 160 runs of itest_events under load): the fence keeps a bridge only until
  // it sets the bridge's final status; the wait list that used it holds a reference of its own.
  RealSetup s;
  auto references = [](cl_event e) {
    cl_uint n = 0;
    REQUIRE(call(&cl_icd_dispatch::clGetEventInfo, e, cl_event_info(CL_EVENT_REFERENCE_COUNT), sizeof n,
                 static_cast<void*>(&n), static_cast<size_t*>(nullptr)) == CL_SUCCESS);
    return n;
  };
  for (cl_int final : {cl_int(CL_COMPLETE), cl_int(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)}) {
    auto gate = std::make_shared<HostFence>();
    WaitList wl(s.context.get(), s.queue.get());
    wl.add(gate);
    REQUIRE(wl.size() == 1);
    CHECK(wl.waitsOnUserEvents());
    const cl_event bridge = wl.data()[0];
    CHECK(references(bridge) == 2); // the fence's and the list's
    gate->complete(final);
    CHECK(references(bridge) == 1); // the list's alone
    cl_int status = CL_QUEUED;
    REQUIRE(call(&cl_icd_dispatch::clGetEventInfo, bridge, cl_event_info(CL_EVENT_COMMAND_EXECUTION_STATUS),
                 sizeof status, static_cast<void*>(&status), static_cast<size_t*>(nullptr)) == CL_SUCCESS);
    CHECK(status == final);
  }
}

TEST_CASE("a wait list skips eventless commands of its own queue", "[enqueue]") {
  RealSetup s;
  std::vector<unsigned char> a;
  FenceRef first = s.write(a, 3, false);
  WaitList same(s.context.get(), s.queue.get());
  same.add(first);
  same.add(allOf({first, first}));
  CHECK(same.size() == 0);
  CHECK_FALSE(first->knownComplete()); // still no marker
  RealQueue other = RealQueue::adopt(call(&cl_icd_dispatch::clCreateCommandQueue, s.context.get(), s.device,
                                          cl_command_queue_properties(0), static_cast<cl_int*>(nullptr)));
  WaitList elsewhere(s.context.get(), other.get());
  elsewhere.add(first);
  CHECK(elsewhere.size() == 1); // the marker's event
  REQUIRE(first->wait() == CL_COMPLETE);
}

TEST_CASE("a marker made for a waiter is flushed, and a queue is not flushed twice for nothing", "[enqueue]") {
  // For an eventless command, asking for its events makes a marker, which must be flushed (NVIDIA
  // submits nothing unflushed: a halo exchange between two GPUs waited milliseconds on such a
  // marker). Once flushed, a queue with nothing new enqueued is not flushed again (a flush costs
  // ~1.5 us there, and the waiters of one command often ask for the same queue in turn).
  RealSetup s;
  std::vector<unsigned char> a;
  FenceRef first = s.write(a, 6, false);
  RealQueue other = RealQueue::adopt(call(&cl_icd_dispatch::clCreateCommandQueue, s.context.get(), s.device,
                                          cl_command_queue_properties(0), static_cast<cl_int*>(nullptr)));
  const size_t flush = DriverClock::slotIndex(&cl_icd_dispatch::clFlush);
  const bool wasOn = DriverClock::on();
  DriverClock::enabled = true;
  const uint64_t before = DriverClock::callsBySlot[flush].load();
  WaitList elsewhere(s.context.get(), other.get());
  elsewhere.add(first);
  const cl_uint waited = elsewhere.size(); // gathers: makes the marker and flushes its queue
  const uint64_t flushes = DriverClock::callsBySlot[flush].load() - before;
  first->flush();                                 // nothing new on the queue: no clFlush
  CHECK(flushQueue(s.queue.get()) == CL_SUCCESS); // nor here
  const uint64_t again = DriverClock::callsBySlot[flush].load() - before - flushes;
  std::vector<unsigned char> b;
  FenceRef second = s.write(b, 7, false);
  second->flush(); // something new: flushed
  const uint64_t after = DriverClock::callsBySlot[flush].load() - before - flushes - again;
  DriverClock::enabled = wasOn;
  CHECK(waited == 1);
  CHECK(flushes >= 1);
  CHECK(again == 0);
  CHECK(after == 1);
  REQUIRE(first->wait() == CL_COMPLETE);
  REQUIRE(second->wait() == CL_COMPLETE);
}

TEST_CASE("with eventless commands off, every command has its event", "[enqueue]") {
  RealSetup s;
  setEventlessCommands(false);
  std::vector<unsigned char> a;
  FenceRef f = s.write(a, 5, false);
  setEventlessCommands(true);
  CHECK(dynamic_cast<RealEventFence*>(f.get()) != nullptr);
  REQUIRE(f->wait() == CL_COMPLETE);
}

namespace {
// A fence that counts how often its status is asked; `onQueue`: it stands for a device command
// (asking it would be a driver call), otherwise for host work.
struct CountingFence final : HostFence {
  explicit CountingFence(bool onQueue = true) : onQueue(onQueue) {}
  bool onQueue;
  int asked = 0;
  cl_int status() override {
    ++asked;
    return HostFence::status();
  }
  cl_command_queue queue() const override {
    return onQueue ? reinterpret_cast<cl_command_queue>(const_cast<CountingFence*>(this)) : nullptr;
  }
};
} // namespace

TEST_CASE("a fence group stops at its first running part and remembers its final status", "[fence]") {
  auto first = std::make_shared<CountingFence>(), second = std::make_shared<CountingFence>();
  auto host = std::make_shared<CountingFence>(false);
  FenceRef group = allOf({first, second, host});
  CHECK(group->status() > CL_COMPLETE);
  CHECK(first->asked == 1);
  CHECK(second->asked == 0); // no driver call past the first command still running
  CHECK(host->asked == 1);   // host parts cost nothing to ask
  host->complete(CL_COMPLETE);
  first->complete(CL_COMPLETE);
  second->complete(CL_COMPLETE);
  CHECK(group->status() == CL_COMPLETE);
  int before = first->asked + second->asked;
  CHECK(group->status() == CL_COMPLETE);
  CHECK(group->knownComplete());
  CHECK(first->asked + second->asked == before); // remembered
  // A failed part fails the group.
  auto ok = std::make_shared<CountingFence>(), bad = std::make_shared<CountingFence>();
  FenceRef failing = allOf({ok, bad});
  ok->complete(CL_COMPLETE);
  bad->complete(-5);
  CHECK(failing->status() == -5);
  // A failed user event fails the group while a device command before it still runs (rusticl
  // never fails the commands behind a failed user event; their events' status showed it).
  auto running = std::make_shared<CountingFence>(), user = std::make_shared<CountingFence>(false);
  FenceRef waiting = allOf({running, user});
  CHECK(waiting->status() > CL_COMPLETE);
  user->complete(-1234);
  CHECK(waiting->status() == -1234);
}
