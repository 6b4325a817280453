// Fences without a device: groups stay flat and short however long the chain of commands that
// made them, and a wait list keeps one fence per real queue (the latest), so that nothing a
// command touches grows with the number of commands before it.
#include "device/Fence.h"
#include "tests/unit/device/QueuedFence.h"

#include <catch2/catch.hpp>

#include <chrono>

using namespace clsplit::device;

namespace {

using test::QueuedFence;

FenceRef command(int queue, uint64_t position) { return std::make_shared<QueuedFence>(queue, position); }

} // namespace

TEST_CASE("a chain of groups stays flat and bounded", "[fence]") {
  // What a program that waits on its previous command's event builds: each command's fence is
  // the group of its own work and everything before it.
  FenceRef chain = completedFence();
  uint64_t position = 0;
  for (int i = 0; i < 100000; ++i) chain = allOf({chain, command(i % 3, ++position)});
  const auto* parts = chain->groupParts();
  REQUIRE(parts != nullptr);
  CHECK(parts->size() <= 17); // collapsed to the latest per queue once past 16 parts
  for (const auto& p : *parts) CHECK(p->groupParts() == nullptr); // never nested
  // The latest command of each queue is kept: its completion implies the others'.
  bool hasLast = false;
  for (const auto& p : *parts) hasLast |= p->positionInQueue() == position;
  CHECK(hasLast);
}

TEST_CASE("groups flatten their nested parts and drop completed ones", "[fence]") {
  auto a = std::make_shared<HostFence>(), b = std::make_shared<HostFence>(), c = std::make_shared<HostFence>();
  FenceRef inner = allOf({a, b});
  FenceRef outer = allOf({inner, c, a});
  REQUIRE(outer->groupParts() != nullptr);
  CHECK(outer->groupParts()->size() == 3); // a, b, c: the duplicate a once
  b->complete(CL_COMPLETE);
  FenceRef later = allOf({outer, c});
  // b is complete: only a and c remain to wait for.
  REQUIRE(later->groupParts() != nullptr);
  CHECK(later->groupParts()->size() == 2);
  a->complete(CL_COMPLETE);
  c->complete(CL_COMPLETE);
  CHECK(later->status() == CL_COMPLETE);
  CHECK(outer->status() == CL_COMPLETE);
}

TEST_CASE("a group of host fences fails with its failing part", "[fence]") {
  auto a = std::make_shared<HostFence>(), b = std::make_shared<HostFence>();
  FenceRef group = allOf({a, b});
  b->complete(-14);
  CHECK(group->wait() == -14); // waiting learns of the failure at once (status() stops at a)
}

TEST_CASE("a wait list keeps the latest fence of each other queue", "[fence]") {
  const auto own = reinterpret_cast<cl_command_queue>(uintptr_t{0x1000}); // queue 0
  WaitList waits(nullptr, own);
  for (uint64_t p = 1; p <= 3000; ++p) waits.add(command(static_cast<int>(p % 4), p));
  // Queue 0 is the list's own queue (implied by its order); queues 1-3 once each.
  CHECK(waits.fenceCount() == 3);
  auto host = std::make_shared<HostFence>();
  waits.add(host);
  waits.add(host);
  CHECK(waits.fenceCount() == 4); // a host fence once
  auto done = std::make_shared<HostFence>();
  done->complete(CL_COMPLETE);
  waits.add(done);
  CHECK(waits.fenceCount() == 4); // nothing to wait for
}

TEST_CASE("a wait list walks a long chain of groups without recursion", "[fence]") {
  // Before groups were flat, a chain of markers over two queues nested groups and a wait list
  // walked them as a tree: exponential in the chain's length.
  FenceRef chain = completedFence();
  uint64_t position = 0;
  for (int i = 0; i < 2000; ++i) {
    FenceRef marker = allOf({chain, command(1 + i % 2, ++position)});
    chain = allOf({marker, command(1 + (i + 1) % 2, ++position), chain});
  }
  const auto start = std::chrono::steady_clock::now();
  WaitList waits(nullptr, nullptr);
  waits.add(chain);
  CHECK(waits.fenceCount() == 2);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5)); // not a timing test: a hang guard
}

TEST_CASE("a queue's progress covers every command at or before the latest known complete", "[fence]") {
  QueueProgress progress;
  CHECK_FALSE(progress.covers(1));
  progress.completed(7);
  CHECK(progress.covers(3));
  CHECK(progress.covers(7));
  CHECK_FALSE(progress.covers(8));
  CHECK_FALSE(progress.covers(0)); // position unknown
  progress.completed(5);           // an earlier command reported late: no step back
  CHECK(progress.covers(7));
  // After a failure of one of its commands, nothing is inferred for the queue: a command ended
  // by a failed wait list ends before the commands queued ahead of it.
  progress.failed();
  CHECK_FALSE(progress.covers(3));
  progress.completed(9);
  CHECK_FALSE(progress.covers(9));
}

TEST_CASE("a wait list uses a fence's own event as is, once, without a reference of its own", "[fence]") {
  // A command fence whose event lives as long as the fence: the list holds the fence, so it
  // needs no retain (a fake handle here: a retain or release would reach no vendor and crash).
  struct OwnEvent final : HostFence {
    OwnEvent(int queue, cl_event event)
        : queue_(reinterpret_cast<cl_command_queue>(static_cast<uintptr_t>(0x1000 + queue))), event_(event) {}
    cl_command_queue queue() const override { return queue_; }
    uint64_t positionInQueue() const override { return 1; }
    cl_event ownEventIn(cl_context) override { return event_; }
    bool commandEventsIn(cl_context) const override { return true; } // a command's, not a bridge
    cl_command_queue queue_;
    cl_event event_;
  };
  const auto e1 = reinterpret_cast<cl_event>(uintptr_t{0x5001}), e2 = reinterpret_cast<cl_event>(uintptr_t{0x5002});
  WaitList list(nullptr, reinterpret_cast<cl_command_queue>(uintptr_t{0x2000}));
  list.add(std::make_shared<OwnEvent>(1, e1));
  list.add(std::make_shared<OwnEvent>(2, e2));
  list.add(std::make_shared<OwnEvent>(3, e1)); // the same event through another fence: listed once
  REQUIRE(list.size() == 2);
  CHECK(list.data()[0] == e1);
  CHECK(list.data()[1] == e2);
  CHECK_FALSE(list.waitsOnUserEvents());
}

TEST_CASE("completed items are found asking one pending command per in-order queue", "[fence]") {
  // Fences of two queues and of none, with set statuses, counting the questions.
  struct Asked final : HostFence {
    Asked(int queue, cl_int status) : queue_(queue), status_(status) {}
    cl_command_queue queue() const override {
      return queue_ ? reinterpret_cast<cl_command_queue>(static_cast<uintptr_t>(0x1000 + queue_)) : nullptr;
    }
    cl_int status() override {
      ++asked;
      return status_;
    }
    int queue_;
    cl_int status_;
    int asked = 0;
  };
  auto f = [](int queue, cl_int status) { return std::make_shared<Asked>(queue, status); };
  std::vector<std::shared_ptr<Asked>> items{f(1, CL_COMPLETE),
                                            f(1, CL_RUNNING),
                                            f(1, CL_COMPLETE), // the last is not asked: queue 1 runs
                                            f(2, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
                                            f(2, CL_COMPLETE), // a failure holds nothing up
                                            f(0, CL_COMPLETE),
                                            f(0, CL_QUEUED),
                                            f(0, CL_COMPLETE)}; // no queue: each asked
  const auto all = items;
  eraseCompletedInOrder(items, [](const std::shared_ptr<Asked>& a) -> FenceRef { return a; });
  REQUIRE(items.size() == 4);
  CHECK(items[0] == all[1]);
  CHECK(items[1] == all[2]);
  CHECK(items[2] == all[3]);
  CHECK(items[3] == all[6]);
  CHECK(all[2]->asked == 0);
  for (size_t i : {0u, 1u, 3u, 4u, 5u, 6u, 7u}) CHECK(all[i]->asked == 1);
}

TEST_CASE("a fence seen from the host is one clsplit completes, for groups too", "[fence]") {
  auto a = std::make_shared<HostFence>(), b = std::make_shared<HostFence>();
  CHECK(hostOrdered(a) == a); // clsplit completes it already
  FenceRef group = allOf({a, b});
  REQUIRE(group->groupParts() != nullptr);
  // A wait list would take the group's parts (device events in a real run): wrapped instead.
  FenceRef host = hostOrdered(group);
  REQUIRE(host != nullptr);
  CHECK(host != group);
  CHECK(host->groupParts() == nullptr);
  CHECK(dynamic_cast<HostFence*>(host.get()) != nullptr);
  a->complete(CL_COMPLETE);
  b->complete(CL_COMPLETE);
  CHECK(host->wait() == CL_COMPLETE);
}
