// Transfers: planned moves executed on storages.
#include "icd/runtime/Transfers.h"

#include "buffer-manager/storage/StagingRing.h"
#include "planner/CommandPlans.h"
#include "planner/Moves.h"

#include <algorithm>

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

namespace {

// The move that alone consumes a large staging leg: through the ring instead (no host version
// is kept, so no other move may read the leg's bytes from the host). Null otherwise.
const planner::Move* ringMoveOf(const planner::Staging& leg, const std::vector<planner::Move>& moves) {
  if (leg.range.size() < buffer::StagingRing::kMinMoveBytes) return nullptr;
  const planner::Move* only = nullptr;
  for (const auto& m : moves) {
    if (m.buffer != leg.buffer || m.range.hi <= leg.range.lo || leg.range.hi <= m.range.lo) continue;
    if (only || m.route != planner::Route::ThroughHost || m.range != leg.range ||
        m.from != buffer::deviceHolder(leg.from))
      return nullptr;
    only = &m;
  }
  return only;
}

} // namespace

std::optional<MoveFailure> runMoves(const std::function<buffer::BufferStorage&(unsigned)>& storageOf,
                                    const std::vector<planner::Staging>& staging,
                                    const std::vector<planner::Move>& moves, Queue& queue, buffer::TransferLog* log,
                                    buffer::Lane lane) {
  std::vector<const planner::Move*> viaRing(staging.size(), nullptr);
  for (size_t i = 0; i < staging.size(); ++i) {
    viaRing[i] = ringMoveOf(staging[i], moves);
    if (viaRing[i]) continue;
    try {
      stage(storageOf(staging[i].buffer), staging[i], queue, log, lane);
    } catch (const Error& e) {
      return MoveFailure{staging[i].from, e.code()};
    }
  }
  std::vector<const planner::Move*> done;
  for (size_t i = 0; i < staging.size(); ++i) {
    if (!viaRing[i]) continue;
    const auto& leg = staging[i];
    unsigned failed = viaRing[i]->to;
    try {
      if (storageOf(leg.buffer).moveThroughRing(leg.range, leg.from, viaRing[i]->to, queue, log, lane, &failed)) {
        done.push_back(viaRing[i]);
        continue;
      }
      stage(storageOf(leg.buffer), leg, queue, log, lane); // no ring yet: as any other leg
    } catch (const Error& e) {
      return MoveFailure{failed, e.code()};
    }
  }
  for (const auto& m : moves) {
    if (std::find(done.begin(), done.end(), &m) != done.end()) continue;
    try {
      move(storageOf(m.buffer), m, queue, log, lane);
    } catch (const Error& e) {
      return MoveFailure{m.to, e.code()};
    }
  }
  return std::nullopt;
}

void acquire(buffer::BufferStorage& storage, const RangeSet& need, unsigned slot, Queue& queue,
             buffer::TransferLog* log) {
  std::vector<planner::Staging> staging;
  std::vector<planner::Move> moves;
  RangeSet staged;
  planner::planAcquire(queue.context().deviceTraits(), storage.holders(), 0, need, slot, staging, moves, staged);
  if (auto failure = runMoves([&](unsigned) -> buffer::BufferStorage& { return storage; }, staging, moves, queue, log))
    throw Error(failure->error, "clsplit: moving bytes to a device failed");
}

device::FenceRef readToHost(buffer::BufferStorage& storage, ByteRange range, void* dst,
                            const std::vector<device::FenceRef>& after, Queue& queue, buffer::TransferLog* log) {
  return storage.readPieces(planner::planRead(storage.holders(), range), range, dst, after, queue, log);
}

} // namespace clsplit::icd::runtime
