// CopyHazards: whole-copy frontiers plus a short window of ranged accesses.
#include "buffer-manager/storage/CopyHazards.h"

#include <algorithm>

namespace clsplit::buffer {

using device::FenceRef;

namespace {

// Adds `fence` to a frontier that keeps the latest fence per real queue (none once complete).
void addLatestPerQueue(std::vector<FenceRef>& frontier, const FenceRef& fence) {
  if (fence && !fence->knownComplete()) device::keepLatestPerQueue(frontier, fence);
}

// An access's bytes as kept: empty when its hull stands for them.
RangeSet bounded(const RangeSet& bytes) { return bytes.count() > CopyHazards::kMaxRanges ? RangeSet{} : bytes; }

} // namespace

CopyHazards::Access::Access(const RangeSet& accessed, const FenceRef& f, bool w)
    : bytes(bounded(accessed)), hull(accessed.hull()), fence(f), write(w) {
  if (!f->groupParts()) {
    queue = f->queue();
    position = f->positionInQueue();
  }
}

void CopyHazards::addValidAfter(device::WaitList& waits) const {
  waits.add(olderWrites_);
  for (const auto& a : recent_)
    if (a.write) waits.add(a.fence);
}

void CopyHazards::addValidAfter(const RangeSet& bytes, device::WaitList& waits) const {
  waits.add(olderWrites_);
  addRecent(bytes, /*writesOnly=*/true, waits);
}

void CopyHazards::addRecent(const RangeSet& bytes, bool writesOnly, device::WaitList& waits) const {
  if (bytes.empty()) return;
  const ByteRange hull = bytes.hull();
  // Newest first: once an access of some queue is in the list, that queue's older accesses are
  // implied by it and need no byte comparison (the comparisons were most of a split launch's
  // own time with a full window of row-shaped regions).
  for (auto a = recent_.rbegin(); a != recent_.rend(); ++a) {
    if (writesOnly && !a->write) continue;
    if (a->hull.hi <= hull.lo || hull.hi <= a->hull.lo) continue;
    if (a->queue && waits.implies(a->queue, a->position)) continue;
    if (waits.implies(a->fence)) continue;
    if (a->touches(bytes)) waits.add(a->fence);
  }
}

std::vector<FenceRef> CopyHazards::validAfter() const {
  std::vector<FenceRef> out;
  for (const auto& f : olderWrites_)
    if (!f->knownComplete()) out.push_back(f);
  for (const auto& a : recent_)
    if (a.write) addLatestPerQueue(out, a.fence);
  return out;
}

std::vector<FenceRef> CopyHazards::validAfter(const RangeSet& bytes) const {
  std::vector<FenceRef> out;
  for (const auto& f : olderWrites_)
    if (!f->knownComplete()) out.push_back(f);
  const ByteRange hull = bytes.hull();
  for (const auto& a : recent_)
    if (a.write && a.hull.hi > hull.lo && hull.hi > a.hull.lo && a.touches(bytes)) addLatestPerQueue(out, a.fence);
  return out;
}

void CopyHazards::addWriteHazards(device::WaitList& waits) const {
  waits.add(olderWrites_);
  waits.add(olderReads_);
  for (const auto& a : recent_) waits.add(a.fence);
}

void CopyHazards::addWriteHazards(const RangeSet& bytes, device::WaitList& waits) const {
  waits.add(olderWrites_);
  waits.add(olderReads_);
  addRecent(bytes, /*writesOnly=*/false, waits);
}

std::vector<FenceRef> CopyHazards::writeHazards() const {
  std::vector<FenceRef> out;
  for (const auto& f : olderWrites_) addLatestPerQueue(out, f);
  for (const auto& f : olderReads_) addLatestPerQueue(out, f);
  for (const auto& a : recent_) addLatestPerQueue(out, a.fence);
  return out;
}

void CopyHazards::noteRead(const FenceRef& fence) {
  std::erase_if(olderReads_, [](const FenceRef& f) { return f->knownComplete(); });
  addLatestPerQueue(olderReads_, fence);
}

void CopyHazards::noteWrite(const FenceRef& fence) {
  // It waited for every earlier access: its completion implies theirs.
  olderReads_.clear();
  recent_.clear();
  olderWrites_.clear();
  if (fence) olderWrites_.push_back(fence);
}

void CopyHazards::noteRead(const RangeSet& bytes, const FenceRef& fence) {
  if (!fence || bytes.empty()) return;
  recent_.emplace_back(bytes, fence, false);
  prune();
}

void CopyHazards::noteWrite(const RangeSet& bytes, const FenceRef& fence) {
  if (!fence || bytes.empty()) return;
  recent_.emplace_back(bytes, fence, true);
  prune();
}

void CopyHazards::fold(const Access& access) {
  addLatestPerQueue(access.write ? olderWrites_ : olderReads_, access.fence);
}

void CopyHazards::prune() {
  // Amortised O(1) per access: passes run when the window has doubled, not on every access.
  if (recent_.size() <= 2 * kRecentAccesses) return;
  // Completed accesses oblige nobody to wait; the window keeps the latest few of the rest.
  std::erase_if(recent_, [](const Access& a) { return a.fence->knownComplete(); });
  std::erase_if(olderReads_, [](const FenceRef& f) { return f->knownComplete(); });
  std::erase_if(olderWrites_, [](const FenceRef& f) { return f->knownComplete(); });
  if (recent_.size() > kRecentAccesses) {
    const size_t excess = recent_.size() - kRecentAccesses;
    for (size_t i = 0; i < excess; ++i) fold(recent_[i]);
    recent_.erase(recent_.begin(), recent_.begin() + static_cast<std::ptrdiff_t>(excess));
  }
}

} // namespace clsplit::buffer
