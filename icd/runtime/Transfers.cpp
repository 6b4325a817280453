// Transfers: planned moves executed on storages.
#include "icd/runtime/Transfers.h"

#include "planner/CommandPlans.h"
#include "planner/Moves.h"

namespace clsplit::icd::runtime {

void stage(buffer::BufferStorage& storage, const planner::Staging& leg, Queue& queue, buffer::TransferLog* log,
           buffer::Lane lane) {
  storage.stageToHost(leg.range, leg.from, queue, log, lane);
}

void move(buffer::BufferStorage& storage, const planner::Move& m, Queue& queue, buffer::TransferLog* log,
          buffer::Lane lane) {
  if (m.route == planner::Route::InDriver)
    storage.copyInDriver(m.range, buffer::deviceOf(m.from), m.to, queue, log, lane);
  else
    storage.copyFromHost(m.range, m.to, queue, log, lane);
}

void acquire(buffer::BufferStorage& storage, const RangeSet& need, unsigned slot, Queue& queue,
             buffer::TransferLog* log) {
  std::vector<planner::Staging> staging;
  std::vector<planner::Move> moves;
  RangeSet staged;
  planner::planAcquire(queue.context().deviceTraits(), storage.holders(), 0, need, slot, staging, moves, staged);
  for (const auto& leg : staging) stage(storage, leg, queue, log);
  for (const auto& m : moves) move(storage, m, queue, log);
}

device::FenceRef readToHost(buffer::BufferStorage& storage, ByteRange range, void* dst,
                            const std::vector<device::FenceRef>& after, Queue& queue, buffer::TransferLog* log) {
  return storage.readPieces(planner::planRead(storage.holders(), range), range, dst, after, queue, log);
}

} // namespace clsplit::icd::runtime
