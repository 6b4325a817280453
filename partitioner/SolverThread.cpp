// The GLPK thread: a task queue served by one thread.
#include "partitioner/SolverThread.h"

#include <glpk.h>

namespace clsplit::partition {

SolverThread::SolverThread() : thread_([this] { loop(); }) {}

SolverThread::~SolverThread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void SolverThread::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void SolverThread::loop() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) break;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
  glp_free_env();
}

} // namespace clsplit::partition
