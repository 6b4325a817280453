// A virtual command queue: one real in-order, profiling-enabled queue per selected device
// (created on first use), and the bookkeeping that gives the application's events in-order
// semantics while real work across devices runs as its data dependences allow.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "device/Fence.h"
#include "icd/objects/Context.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace clsplit::icd {

class Queue final : public TypedObject<Queue, _cl_command_queue, ObjectKind::Queue, CL_INVALID_COMMAND_QUEUE>,
                    public buffer::QueueProvider {
public:
  Queue(std::shared_ptr<Context> context, cl_command_queue_properties properties);
  ~Queue() override;

  Context& context() const { return *context_; }
  const std::shared_ptr<Context>& contextRef() const { return context_; }
  cl_command_queue_properties properties() const { return properties_; }
  cl_command_queue_properties setProperties(cl_command_queue_properties enable, bool on);
  bool profiling() const { return properties_ & CL_QUEUE_PROFILING_ENABLE; }
  // The list given to clCreateCommandQueueWithProperties (CL_QUEUE_PROPERTIES_ARRAY).
  void setPropertiesArray(std::vector<cl_queue_properties> list) { propertiesArray_ = std::move(list); }

  // The real queue of device slot `slot` (created on first use).
  cl_command_queue realQueue(unsigned slot) { return madeQueue(slot, false); }
  cl_command_queue queue(unsigned slot) override { return realQueue(slot); }
  // A second real queue of the slot for transfers that should not wait behind its kernels
  // (boundary-first launches: a halo moves while the interior computes); created on first use.
  cl_command_queue transferQueue(unsigned slot) override { return madeQueue(slot, true); }
  // Whether the real commands being enqueued need events of their own: clsplit times every
  // command (report, trace), or the command being planned is timed (TimedCommand).
  bool timesCommands() override;
  // While planning (under the context's planning lock) a command whose real commands must be
  // timed: a launch the partitioner measures, or a command whose event the application gets
  // from a profiling queue.
  struct TimedCommand {
    Queue& queue;
    TimedCommand(Queue& q, bool on) : queue(q) { queue.timedCommand_.store(on, std::memory_order_relaxed); }
    ~TimedCommand() { queue.timedCommand_.store(false, std::memory_order_relaxed); }
    TimedCommand(const TimedCommand&) = delete;
    TimedCommand& operator=(const TimedCommand&) = delete;
  };
  const SlotContext& slot(unsigned s) const { return context_->slot(s); }

  // Records the completion fence of a command just planned on this queue.
  void recordCommand(const device::FenceRef& done);
  // Work clsplit starts on its own behalf (eager uploads): clFinish waits for it, but it is no
  // command of the application, so events and blocking calls do not.
  void recordBackground(const device::FenceRef& done);
  // The fence that completes when every command recorded so far has completed.
  device::FenceRef allRecorded();

  // Barriers (clEnqueueBarrier*, clEnqueueWaitForEvents): every later command waits for the
  // gate. (Other ordering between commands follows their data, tracked by the directories.)
  void setGate(const device::FenceRef& gate);
  device::FenceRef gate();

  // Commands that read or write the application's host memory directly (reads into `ptr`,
  // writes from `ptr`, maps) keep their in-order semantics through these hazards.
  struct HostAccess {
    const std::byte* lo;
    const std::byte* hi;
    bool writesHost;
    device::FenceRef fence;
  };
  // Fences of earlier host-memory accesses a new access of [ptr, ptr+size) must follow.
  std::vector<device::FenceRef> hostHazards(const void* ptr, size_t size, bool writesHost);
  void noteHostAccess(const void* ptr, size_t size, bool writesHost, const device::FenceRef& fence);

  void flush();
  void finish();

  cl_int info(cl_command_queue_info param, size_t size, void* value, size_t* sizeRet) const;

private:
  std::vector<cl_command_queue> madeRealQueues(); // the real queues created so far
  cl_command_queue madeQueue(unsigned slot, bool transfer);

  std::shared_ptr<Context> context_;
  cl_command_queue_properties properties_;
  std::vector<cl_queue_properties> propertiesArray_;
  std::mutex mutex_;
  // By slot, then the transfer queues by slot (index slots + slot); empty handle until first use.
  std::vector<device::RealQueue> realQueues_;
  // The same handles, read without the lock once made (every command asks).
  std::unique_ptr<std::atomic<cl_command_queue>[]> madeQueues_;
  // Adds `done` to a record of what completes everything so far: the latest fence per real
  // queue (every fence, up to a bound, with `keepEach`) and the pending host fences.
  static void addToFrontier(std::vector<device::FenceRef>& frontier, size_t& pruneAbove, const device::FenceRef& done,
                            bool keepEach);
  std::vector<device::FenceRef> outstanding_; // commands: latest per real queue, host fences
  size_t pruneOutstandingAbove_ = 16;         // device::pruneCompleted
  std::vector<device::FenceRef> background_;  // clsplit's own work, likewise
  size_t pruneBackgroundAbove_ = 16;
  device::FenceRef gate_;
  std::atomic<bool> gated_{false}; // gate_ may be set (read without the lock when not)
  std::atomic<bool> timedCommand_{false};
  std::vector<HostAccess> hostAccesses_;
  size_t pruneHostAccessesAbove_ = 16; // device::pruneCompleted
};

} // namespace clsplit::icd
