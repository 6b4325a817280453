// The submission thread without a device: deferred work runs in order, drain() returns only
// once all of it has run (and at once on the thread itself), and a deferred command's fence
// stands for the command from the moment it is deferred.
#include "device/Submission.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace clsplit::device;

TEST_CASE("deferred work runs in order and drain waits for all of it", "[submission]") {
  std::vector<int> order;
  std::atomic<int> ran{0};
  for (int i = 0; i < 5000; ++i) // more than the bound on pending items: defer waits, never drops
    submission::defer([&order, &ran, i] {
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the rest queue up
      order.push_back(i);
      ran.fetch_add(1);
    });
  submission::drain();
  CHECK_FALSE(submission::pending());
  REQUIRE(ran.load() == 5000);
  REQUIRE(order.size() == 5000);
  bool inOrder = true;
  for (int i = 0; i < 5000; ++i) inOrder &= order[i] == i;
  CHECK(inOrder);
  CHECK(submission::deferredCount() >= 5000);
}

TEST_CASE("drain on the submission thread itself returns at once", "[submission]") {
  std::atomic<bool> second{false};
  bool secondRanBeforeFirstEnded = true;
  submission::defer([&] {
    submission::drain(); // would wait for itself (and the item after it) forever
    secondRanBeforeFirstEnded = second.load();
  });
  submission::defer([&] { second.store(true); });
  submission::drain();
  CHECK(second.load());
  CHECK_FALSE(secondRanBeforeFirstEnded); // still in order
}

TEST_CASE("a deferred command's fence is queued until the thread resolves it", "[submission]") {
  auto fence = std::make_shared<submission::DeferredFence>(nullptr, nullptr);
  auto command = std::make_shared<HostFence>();
  std::atomic<bool> release{false};
  submission::defer([&] {
    while (!release.load()) std::this_thread::yield();
    fence->resolve(command);
  });
  CHECK(fence->status() == CL_QUEUED); // asking does not wait for the thread
  CHECK_FALSE(fence->knownComplete());
  // Until enqueued: after every command enqueued so far, and after the fences deferred before.
  auto later = std::make_shared<submission::DeferredFence>(nullptr, nullptr);
  CHECK(fence->positionInQueue() > (uint64_t{1} << 62));
  CHECK(later->positionInQueue() > fence->positionInQueue());
  release.store(true);
  std::thread completer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    command->complete(CL_COMPLETE);
  });
  CHECK(fence->wait() == CL_COMPLETE); // drains, then waits for the command itself
  completer.join();
  CHECK(fence->knownComplete());
}

TEST_CASE("a vendor error of a deferred command is reported once", "[submission]") {
  CHECK(submission::takeError() == CL_SUCCESS);
  submission::noteError(CL_OUT_OF_RESOURCES);
  submission::noteError(CL_INVALID_VALUE); // the first one is kept
  CHECK(submission::takeError() == CL_OUT_OF_RESOURCES);
  CHECK(submission::takeError() == CL_SUCCESS);
}

TEST_CASE("deferring pauses while every deferred launch is waited for at once", "[submission]") {
  submission::setEnabled(true);
  REQUIRE(submission::worthwhile());
  // A program that reads back after every launch: each drain finds the launch still pending.
  for (int i = 0; i < 64; ++i) {
    std::atomic<bool> go{false};
    submission::defer([&go] {
      while (!go.load()) std::this_thread::yield();
    });
    std::thread releaser([&go] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      go.store(true);
    });
    submission::drain();
    releaser.join();
  }
  CHECK_FALSE(submission::worthwhile()); // launches are enqueued directly for a while
  int paused = 1;
  while (!submission::worthwhile() && paused < 100000) ++paused;
  CHECK(paused == 1024); // then the program's pattern is looked at again
  submission::setEnabled(false);
}
