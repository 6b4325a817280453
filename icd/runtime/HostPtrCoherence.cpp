// Bringing CL_MEM_USE_HOST_PTR memory up to date at synchronisation points.
#include "icd/runtime/HostPtrCoherence.h"

#include "buffer-manager/storage/BufferStorage.h"
#include "icd/objects/Context.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"

#include <algorithm>

namespace clsplit::icd::runtime {

namespace {

// Whether the application's writes into its memory are followed too: everywhere with
// CLSPLIT_HOST_PTR_SYNC=2, and by default where every device shares the host's memory (CPU
// runtimes, for which such programs are written, and where fetching the bytes again is a copy
// in memory). On a discrete GPU it would upload every such buffer again after each
// synchronisation point.
bool followsHostWrites(const Context& context, const std::string& mode) {
  if (mode == "2") return true;
  return std::all_of(context.slots().begin(), context.slots().end(), [](const auto& s) { return s.hostUnified; });
}

// The latest position per real queue among the completed parts of `waited`.
buffer::BufferStorage::Settled settledBy(const device::FenceRef& waited) {
  buffer::BufferStorage::Settled settled;
  auto note = [&](const device::FenceRef& f) {
    if (!f || !f->queue() || !f->positionInQueue() || f->status() != CL_COMPLETE) return;
    for (auto& [q, position] : settled)
      if (q == f->queue()) {
        position = std::max(position, f->positionInQueue());
        return;
      }
    settled.emplace_back(f->queue(), f->positionInQueue());
  };
  if (const auto* parts = waited ? waited->groupParts() : nullptr)
    for (const auto& p : *parts) note(p);
  else
    note(waited);
  return settled;
}

} // namespace

void bringHostPtrMemoryHome(Queue& queue, const device::FenceRef& waited) {
  Context& context = queue.context();
  if (!context.hasHostPtrBuffers()) return;
  Runtime& rt = Runtime::get();
  const std::string& mode = rt.settings().value("CLSPLIT_HOST_PTR_SYNC");
  if (mode == "0") return;
  HostSpan span("USE_HOST_PTR memory home");
  std::vector<device::FenceRef> reads;
  buffer::TransferLog log;
  const auto settled = settledBy(waited);
  {
    std::lock_guard lock(context.planMutex());
    for (const auto& storage : context.hostPtrBuffers()) {
      auto more = storage->bringHome(queue, &log, settled);
      reads.insert(reads.end(), more.begin(), more.end());
    }
  }
  if (!reads.empty()) {
    rt.report().noteTransfers(log);
    if (auto* trace = Trace::active()) trace->transfers(log);
    device::allOf(std::move(reads))->wait();
  }
  if (!followsHostWrites(context, mode)) return;
  std::lock_guard lock(context.planMutex());
  for (const auto& storage : context.hostPtrBuffers()) storage->giveHomeTheBytes();
}

} // namespace clsplit::icd::runtime
