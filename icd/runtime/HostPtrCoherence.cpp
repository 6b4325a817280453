// Bringing CL_MEM_USE_HOST_PTR memory up to date at synchronisation points.
#include "icd/runtime/HostPtrCoherence.h"

#include "buffer-manager/storage/BufferStorage.h"
#include "icd/objects/Context.h"
#include "icd/objects/Queue.h"
#include "icd/runtime/RunReport.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"

namespace clsplit::icd::runtime {

void bringHostPtrMemoryHome(Queue& queue) {
  Context& context = queue.context();
  if (!context.hasHostPtrBuffers()) return;
  Runtime& rt = Runtime::get();
  if (rt.settings().value("CLSPLIT_HOST_PTR_SYNC") == "0") return;
  HostSpan span("USE_HOST_PTR memory home");
  std::vector<device::FenceRef> reads;
  buffer::TransferLog log;
  {
    std::lock_guard lock(context.planMutex());
    for (const auto& storage : context.hostPtrBuffers()) {
      auto more = storage->bringHome(queue, &log);
      reads.insert(reads.end(), more.begin(), more.end());
    }
  }
  if (reads.empty()) return;
  rt.report().noteTransfers(log);
  if (auto* trace = Trace::active()) trace->transfers(log);
  device::allOf(std::move(reads))->wait();
}

} // namespace clsplit::icd::runtime
