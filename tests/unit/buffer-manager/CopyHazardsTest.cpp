// The hazards of one device copy, without a device: ranged accesses wait only for the accesses
// of the bytes they touch (a halo read waits for the boundary work-groups, not the interior),
// whole-copy accesses for everything, and the record stays bounded however many accesses came.
#include "buffer-manager/storage/CopyHazards.h"
#include "tests/unit/device/QueuedFence.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace clsplit;
using namespace clsplit::device;
using clsplit::buffer::CopyHazards;

namespace {

using test::QueuedFence;

uint64_t position = 0;
std::shared_ptr<QueuedFence> command(int queue) { return std::make_shared<QueuedFence>(queue, ++position); }

bool has(const std::vector<FenceRef>& fences, const FenceRef& f) {
  return std::find(fences.begin(), fences.end(), f) != fences.end();
}

} // namespace

TEST_CASE("a halo read waits for the piece that wrote the halo, not the interior", "[hazards]") {
  CopyHazards h;
  // The slice [0, 4096) of a device: its boundary piece writes the last row [3584, 4096) first,
  // then the interior writes the rest, both on the compute queue (0).
  auto boundary = command(0), interior = command(0);
  h.noteWrite(RangeSet::of(3584, 4096), boundary);
  h.noteWrite(RangeSet::of(0, 3584), interior);

  const auto halo = h.validAfter(RangeSet::of(3584, 4096));
  CHECK(has(halo, boundary));
  CHECK_FALSE(has(halo, interior));
  // Bytes the interior wrote wait for it.
  CHECK(has(h.validAfter(RangeSet::of(100, 200)), interior));
  // The whole copy: the latest write per queue implies the rest.
  const auto all = h.validAfter();
  CHECK(has(all, interior));
  CHECK(all.size() == 1);

  // Completed writes oblige nobody.
  boundary->complete(CL_COMPLETE);
  CHECK(h.validAfter(RangeSet::of(3584, 4096)).empty());
}

TEST_CASE("a ranged write waits for the readers and writers of its bytes only", "[hazards]") {
  CopyHazards h;
  auto kernel = command(0); // read [0, 4608), wrote [0, 4096)
  h.noteRead(RangeSet::of(0, 4608), kernel);
  h.noteWrite(RangeSet::of(0, 4096), kernel);
  auto next = command(0); // the next kernel reads only its own rows
  h.noteRead(RangeSet::of(0, 4096), next);
  h.noteWrite(RangeSet::of(0, 4096), next);

  // A move of the halo [4096, 4608) on the transfer queue (1): only `kernel` read those bytes.
  device::WaitList waits(nullptr, reinterpret_cast<cl_command_queue>(static_cast<uintptr_t>(0x1001)));
  h.addWriteHazards(RangeSet::of(4096, 4608), waits);
  CHECK(waits.fenceCount() == 1);
  const auto hazards = h.writeHazards();
  CHECK(has(hazards, next)); // the whole copy: everything (the latest per queue)
}

TEST_CASE("a whole-copy write resets the record; whole-copy reads are hazards of every write", "[hazards]") {
  CopyHazards h;
  auto a = command(0), b = command(1);
  h.noteWrite(RangeSet::of(0, 100), a);
  h.noteRead(RangeSet::of(200, 300), b);
  auto whole = command(0);
  h.noteWrite(whole); // it waited for both
  CHECK(h.recentCount() == 0);
  CHECK(has(h.validAfter(RangeSet::of(0, 10)), whole));

  auto reader = command(2);
  h.noteRead(reader);
  device::WaitList waits(nullptr, reinterpret_cast<cl_command_queue>(static_cast<uintptr_t>(0x1000)));
  h.addWriteHazards(RangeSet::of(5000, 5001), waits); // any bytes: the whole-copy reader counts
  CHECK(waits.fenceCount() == 1);                     // `whole` is on the waiting queue itself
  CHECK(has(h.writeHazards(), reader));
  // Reads do not wait for reads.
  CHECK_FALSE(has(h.validAfter(RangeSet::of(0, 10)), reader));
}

TEST_CASE("the ranged record stays bounded and folds what it drops into the whole-copy one", "[hazards]") {
  CopyHazards h;
  std::shared_ptr<QueuedFence> first;
  for (int i = 0; i < 1000; ++i) {
    auto f = command(i % 3);
    if (!first) first = f;
    h.noteWrite(RangeSet::of(uint64_t(i) * 16, uint64_t(i) * 16 + 16), f);
  }
  CHECK(h.recentCount() <= 2 * CopyHazards::kRecentAccesses);
  // Bytes of a dropped access are still waited for, through the latest folded fence of its
  // queue (it implies the dropped one): never less than needed.
  const auto early = h.validAfter(RangeSet::of(0, 16));
  CHECK_FALSE(early.empty());
  bool sameQueue = false;
  for (const auto& f : early)
    sameQueue |= f->queue() == first->queue() && f->positionInQueue() >= first->positionInQueue();
  CHECK(sameQueue);
  CHECK(early.size() <= 3 + 2 * CopyHazards::kRecentAccesses);
}

TEST_CASE("an access with many ranges is kept as its hull", "[hazards]") {
  CopyHazards h;
  std::vector<ByteRange> rows;
  for (uint64_t r = 0; r < 500; ++r) rows.push_back({r * 1024, r * 1024 + 64});
  auto column = command(0);
  h.noteWrite(RangeSet::fromRanges(rows), column);
  // A byte between two written ranges: the hull makes it wait (conservative).
  CHECK(has(h.validAfter(RangeSet::of(100, 101)), column));
  CHECK(h.validAfter(RangeSet::of(600 * 1024, 600 * 1024 + 1)).empty());
}

TEST_CASE("writesComplete sees every write, ranged or whole", "[hazards]") {
  CopyHazards h;
  auto a = command(0), b = command(1);
  h.noteWrite(RangeSet::of(0, 8), a);
  h.noteWrite(RangeSet::of(8, 16), b);
  auto done = [](const FenceRef& f) { return f->status() == CL_COMPLETE; };
  CHECK_FALSE(h.writesComplete(done));
  a->complete(CL_COMPLETE);
  CHECK_FALSE(h.writesComplete(done));
  b->complete(CL_COMPLETE);
  CHECK(h.writesComplete(done));
}
