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

RangeSet bounded(const RangeSet& bytes) {
  return bytes.count() > CopyHazards::kMaxRanges ? RangeSet{bytes.hull()} : bytes;
}

} // namespace

void CopyHazards::addValidAfter(device::WaitList& waits) const {
  waits.add(olderWrites_);
  for (const auto& a : recent_)
    if (a.write) waits.add(a.fence);
}

void CopyHazards::addValidAfter(const RangeSet& bytes, device::WaitList& waits) const {
  waits.add(olderWrites_);
  for (const auto& a : recent_)
    if (a.write && a.bytes.intersects(bytes)) waits.add(a.fence);
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
  for (const auto& a : recent_)
    if (a.write && a.bytes.intersects(bytes)) addLatestPerQueue(out, a.fence);
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
  for (const auto& a : recent_)
    if (a.bytes.intersects(bytes)) waits.add(a.fence);
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
  recent_.push_back({bounded(bytes), fence, false});
  prune();
}

void CopyHazards::noteWrite(const RangeSet& bytes, const FenceRef& fence) {
  if (!fence || bytes.empty()) return;
  recent_.push_back({bounded(bytes), fence, true});
  prune();
}

void CopyHazards::fold(const Access& access) {
  addLatestPerQueue(access.write ? olderWrites_ : olderReads_, access.fence);
}

void CopyHazards::prune() {
  // Completed accesses oblige nobody to wait; the window keeps the latest few of the rest.
  if (recent_.size() > pruneAbove_) {
    std::erase_if(recent_, [](const Access& a) { return a.fence->knownComplete(); });
    std::erase_if(olderReads_, [](const FenceRef& f) { return f->knownComplete(); });
    std::erase_if(olderWrites_, [](const FenceRef& f) { return f->knownComplete(); });
    pruneAbove_ = std::max<size_t>(16, recent_.size());
  }
  if (recent_.size() > kRecentAccesses) {
    const size_t excess = recent_.size() - kRecentAccesses;
    for (size_t i = 0; i < excess; ++i) fold(recent_[i]);
    recent_.erase(recent_.begin(), recent_.begin() + static_cast<std::ptrdiff_t>(excess));
  }
}

} // namespace clsplit::buffer
