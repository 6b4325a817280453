// The submission thread (Submission.h): one FIFO of deferred vendor calls, taken in batches by
// a thread that spins briefly when idle (a launch-bound program defers its next launch within
// microseconds; waking a sleeping thread costs a system call on both sides) and then sleeps.
#include "device/Submission.h"

#include "support/Log.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CLSPLIT_PAUSE() _mm_pause()
#else
#define CLSPLIT_PAUSE() std::this_thread::yield()
#endif

namespace clsplit::device::submission {

namespace {

std::atomic<bool> enabledFlag{false};
std::atomic<cl_int> firstError{0};

// How many deferred items may wait before defer() waits for the thread: bounds memory (and how
// far the host runs ahead of the vendor) without costing a launch-bound program anything.
constexpr uint64_t kMaxPending = 1024;
// How long the idle thread spins before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(200);
// worthwhile(): over a window of this many deferred launches, at most a quarter may have had a
// drain wait for them; otherwise the next kPauseLaunches launches are enqueued directly.
constexpr uint64_t kWindow = 64;
constexpr uint64_t kPauseLaunches = 1024;

// What worthwhile() decides from (the launching threads only; relaxed: a heuristic).
struct Payoff {
  std::atomic<uint64_t> deferredInWindow{0};
  std::atomic<uint64_t> waitedInWindow{0};
  std::atomic<uint64_t> pausedFor{0}; // launches left to enqueue directly
};
Payoff payoff;

class Worker {
public:
  Worker() : thread_([this] { run(); }) {}
  ~Worker() { stop(); }

  void defer(std::function<void()> work) {
    if (done_.load(std::memory_order_acquire) + kMaxPending < deferred_.load(std::memory_order_relaxed))
      waitUntil(deferred_.load(std::memory_order_relaxed) - kMaxPending);
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      if (stopped_) { // after shutdown(): run it here, still in order (everything before has run)
        lockedRunInline(work);
        return;
      }
      queue_.push_back(std::move(work));
      waiting_.store(true, std::memory_order_release);
      deferred_.fetch_add(1, std::memory_order_release);
      wake = sleeping_;
    }
    if (wake) wakeUp_.notify_one();
  }

  void drain() {
    const uint64_t target = deferred_.load(std::memory_order_acquire);
    if (done_.load(std::memory_order_acquire) >= target) return;
    if (std::this_thread::get_id() == id_) return; // its own items run in order anyway
    payoff.waitedInWindow.fetch_add(1, std::memory_order_relaxed);
    waitUntil(target);
  }

  uint64_t deferred() const { return deferred_.load(std::memory_order_relaxed); }
  bool pending() const { return done_.load(std::memory_order_acquire) < deferred_.load(std::memory_order_acquire); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return;
      stopped_ = true;
    }
    wakeUp_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

private:
  void waitUntil(uint64_t target) {
    for (unsigned spins = 0; done_.load(std::memory_order_acquire) < target; ++spins) {
      if (spins < 4096)
        CLSPLIT_PAUSE();
      else
        std::this_thread::yield();
    }
  }

  void lockedRunInline(std::function<void()>& work) {
    deferred_.fetch_add(1, std::memory_order_release);
    runOne(work);
  }

  void runOne(std::function<void()>& work) {
    try {
      work();
    } catch (const std::exception& e) {
      log().error("submission thread: {}", e.what());
    } catch (...) {
      log().error("submission thread: unknown error");
    }
    done_.fetch_add(1, std::memory_order_release);
  }

  void run() {
    id_ = std::this_thread::get_id();
    std::vector<std::function<void()>> batch;
    for (;;) {
      if (!waiting_.load(std::memory_order_acquire)) {
        const auto until = std::chrono::steady_clock::now() + kSpin;
        for (unsigned spins = 1; !waiting_.load(std::memory_order_acquire); ++spins) {
          CLSPLIT_PAUSE();
          if (spins % 64 == 0 && std::chrono::steady_clock::now() > until) break;
        }
      }
      {
        std::unique_lock lock(mutex_);
        while (queue_.empty() && !stopped_) {
          sleeping_ = true;
          wakeUp_.wait(lock);
          sleeping_ = false;
        }
        if (queue_.empty()) return; // stopped with nothing left
        batch.swap(queue_);
        waiting_.store(false, std::memory_order_release);
      }
      for (auto& work : batch) runOne(work);
      batch.clear();
    }
  }

  std::mutex mutex_;
  std::condition_variable wakeUp_;
  std::vector<std::function<void()>> queue_; // guarded by mutex_
  bool sleeping_ = false;                    // guarded by mutex_
  bool stopped_ = false;                     // guarded by mutex_
  std::atomic<bool> waiting_{false};         // queue_ is not empty (read without the lock)
  std::atomic<uint64_t> deferred_{0}, done_{0};
  std::atomic<std::thread::id> id_{};
  std::thread thread_; // last: started once the members above exist
};

std::atomic<Worker*> made{nullptr};

Worker& worker() {
  if (auto* w = made.load(std::memory_order_acquire)) return *w;
  static Worker instance; // joined at exit, before the vendors' own statics go
  made.store(&instance, std::memory_order_release);
  return instance;
}

} // namespace

void setEnabled(bool enabled) { enabledFlag.store(enabled, std::memory_order_relaxed); }
bool enabled() { return enabledFlag.load(std::memory_order_relaxed); }

bool worthwhile() {
  if (!enabled()) return false;
  if (uint64_t paused = payoff.pausedFor.load(std::memory_order_relaxed)) {
    payoff.pausedFor.store(paused - 1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void defer(std::function<void()> work) {
  if (payoff.deferredInWindow.fetch_add(1, std::memory_order_relaxed) + 1 >= kWindow) {
    if (payoff.waitedInWindow.load(std::memory_order_relaxed) * 4 > kWindow) {
      payoff.pausedFor.store(kPauseLaunches, std::memory_order_relaxed);
      log().debug("submission thread: most deferred launches were waited for at once; {} launches enqueued directly",
                  kPauseLaunches);
    }
    payoff.deferredInWindow.store(0, std::memory_order_relaxed);
    payoff.waitedInWindow.store(0, std::memory_order_relaxed);
  }
  worker().defer(std::move(work));
}

void drain() {
  if (auto* w = made.load(std::memory_order_acquire)) w->drain();
}

bool pending() {
  auto* w = made.load(std::memory_order_acquire);
  return w && w->pending();
}

uint64_t deferredCount() {
  auto* w = made.load(std::memory_order_acquire);
  return w ? w->deferred() : 0;
}

cl_int takeError() { return firstError.exchange(0); }

void noteError(cl_int error) {
  cl_int none = 0;
  firstError.compare_exchange_strong(none, error);
}

void shutdown() {
  if (auto* w = made.load(std::memory_order_acquire)) w->stop();
}

DeferredFence::DeferredFence(cl_command_queue queue, cl_context context) : queue_(queue), context_(context) {
  static std::atomic<uint64_t> deferredSoFar{0};
  pendingPosition_ = (uint64_t{1} << 62) + deferredSoFar.fetch_add(1, std::memory_order_relaxed) + 1;
}

void DeferredFence::resolve(FenceRef command) {
  inner_ = std::move(command);
  ready_.store(true, std::memory_order_release);
}

const FenceRef& DeferredFence::resolved() {
  if (!ready()) drain();
  // Only the submission thread itself could get here unresolved (drain returns at once there);
  // it never waits on what it has not enqueued yet.
  while (!ready()) std::this_thread::yield();
  return inner_;
}

} // namespace clsplit::device::submission
