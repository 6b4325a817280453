// The worker threads behind runAfter() and runInBackground().
#include "device/HostExecutor.h"

#include "support/Log.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace clsplit::device {

namespace {

class Worker {
public:
  // Host work others wait for (copies into the application's memory, merges).
  static Worker& hostWork() {
    static Worker* w = new Worker; // intentionally leaked: may be used until process exit
    return *w;
  }
  // Work nobody waits for (measurements): apart, so that it never delays host work.
  static Worker& background() {
    static Worker* w = new Worker; // intentionally leaked, as above
    return *w;
  }
  void post(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return;
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }
  bool drain(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, timeout, [&] { return tasks_.empty() && !running_; });
  }
  void stop() {
    std::unique_lock lock(mutex_);
    stopped_ = true;
    tasks_.clear();
    idle_.wait(lock, [&] { return !running_; });
  }

private:
  Worker() {
    std::thread([this] { loop(); }).detach();
  }
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        running_ = false;
        if (tasks_.empty()) idle_.notify_all();
        cv_.wait(lock, [&] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
        running_ = true;
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<void()>> tasks_;
  bool running_ = false, stopped_ = false;
};

void execute(const std::shared_ptr<HostFence>& fence, const std::function<void()>& work) {
  try {
    fence->advance(CL_RUNNING);
    work();
    fence->complete(CL_COMPLETE);
  } catch (const std::exception& e) {
    log().error("host work failed: {}", e.what());
    fence->complete(CL_OUT_OF_RESOURCES);
  }
}

} // namespace

std::shared_ptr<HostFence> runAfter(std::vector<FenceRef> after, std::function<void()> work) {
  auto fence = std::make_shared<HostFence>();
  FenceRef inputs = allOf(std::move(after));
  inputs->flush(); // the work runs from completion callbacks: the inputs must be submitted
  cl_int s = inputs->status();
  if (s == CL_COMPLETE) {
    execute(fence, work);
    return fence;
  }
  if (s < 0) {
    fence->complete(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    return fence;
  }
  inputs->onComplete([fence, work = std::move(work), inputs](cl_int status) {
    if (status < 0) {
      fence->complete(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      return;
    }
    Worker::hostWork().post([fence, work] { execute(fence, work); });
  });
  return fence;
}

void runInBackground(std::function<void()> work) { Worker::background().post(std::move(work)); }

bool drainBackground(std::chrono::milliseconds timeout) { return Worker::background().drain(timeout); }

void stopBackground() { Worker::background().stop(); }

} // namespace clsplit::device
