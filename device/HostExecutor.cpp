// The worker thread behind runAfter().
#include "device/HostExecutor.h"

#include "support/Log.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace clsplit::device {

namespace {

class Worker {
public:
  static Worker& instance() {
    static Worker* w = new Worker; // intentionally leaked: may be used until process exit
    return *w;
  }
  void post(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

private:
  Worker() { std::thread([this] { loop(); }).detach(); }
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
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
    Worker::instance().post([fence, work] { execute(fence, work); });
  });
  return fence;
}

} // namespace clsplit::device
