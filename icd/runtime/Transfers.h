// Executing planned transfers (planner/Moves.h) on the buffers' storages, and making bytes
// valid on a device for commands other than launches through the same planner.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "icd/objects/Queue.h"
#include "planner/LaunchPlan.h"

#include <functional>
#include <optional>

namespace clsplit::icd::runtime {

// A staging leg: the range read out of its device into a host version.
void stage(buffer::BufferStorage& storage, const planner::Staging& leg, Queue& queue, buffer::TransferLog* log,
           buffer::Lane lane = buffer::Lane::Compute);
// A move into a device (a staged one after its leg: from the host version it made).
void move(buffer::BufferStorage& storage, const planner::Move& m, Queue& queue, buffer::TransferLog* log,
          buffer::Lane lane = buffer::Lane::Compute);

// A plan's transfers (of buffers storageOf(index)): staging legs first (what leaves its device
// is read right after the kernel that wrote it, not behind the same device's incoming
// transfers), then large moves between two devices through the staging ring, then every other
// move. On failure: the device it happened on and the error.
struct MoveFailure {
  unsigned device = 0;
  cl_int error = CL_SUCCESS;
};
std::optional<MoveFailure> runMoves(const std::function<buffer::BufferStorage&(unsigned)>& storageOf,
                                    const std::vector<planner::Staging>& staging,
                                    const std::vector<planner::Move>& moves, Queue& queue, buffer::TransferLog* log,
                                    buffer::Lane lane = buffer::Lane::Compute);

// Makes `need` of `storage` valid on `slot` (planned, then executed); a command reading it on
// `slot` then waits for storage.validAfter(slot).
void acquire(buffer::BufferStorage& storage, const RangeSet& need, unsigned slot, Queue& queue,
             buffer::TransferLog* log);

// Copies `range` of `storage` into `dst` after `after`, each piece from where the planner reads
// it (planner::planRead). Returns the fence of the whole copy.
device::FenceRef readToHost(buffer::BufferStorage& storage, ByteRange range, void* dst,
                            const std::vector<device::FenceRef>& after, Queue& queue, buffer::TransferLog* log);

} // namespace clsplit::icd::runtime
