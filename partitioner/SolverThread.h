// One thread for every GLPK call. GLPK keeps per-thread state (its memory environment), so a
// problem created on one thread must never be used or freed on another; the partitioner is
// called from the application's thread and from event-callback threads, so all LP work is
// handed to this thread and waited for.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace clsplit::partition {

class SolverThread {
public:
  SolverThread();
  // Runs the remaining tasks, then releases the thread's GLPK environment.
  ~SolverThread();
  SolverThread(const SolverThread&) = delete;
  SolverThread& operator=(const SolverThread&) = delete;

  // Runs f() on the solver thread and returns its result (exceptions are passed on).
  template <class F>
  auto run(F&& f) -> decltype(f()) {
    using R = decltype(f());
    std::packaged_task<R()> task(std::forward<F>(f));
    auto result = task.get_future();
    post([&task] { task(); });
    return result.get();
  }
  // Runs f() on the solver thread later; returns at once.
  void submit(std::function<void()> f) { post(std::move(f)); }

private:
  void post(std::function<void()> task);
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace clsplit::partition
