// SimulatedBuffers: directories of holders (tokens unused) and a plan's effects on them.
#include "planner/Simulation.h"

#include <bit>

namespace clsplit::planner {

using buffer::deviceHolder;
using buffer::kHost;

unsigned SimulatedBuffers::add(uint64_t bytes, HolderMask initial) {
  Buffer b;
  const Holder first = static_cast<Holder>(std::countr_zero(initial));
  b.directory = std::make_unique<buffer::Directory<uint8_t>>(bytes, first, 0);
  for (HolderMask rest = initial & (initial - 1); rest; rest &= rest - 1)
    b.directory->addCopy(RangeSet::of(0, bytes), static_cast<Holder>(std::countr_zero(rest)), 0);
  b.view = std::make_unique<buffer::DirectoryHolders<uint8_t>>(*b.directory);
  buffers_.push_back(std::move(b));
  return static_cast<unsigned>(buffers_.size() - 1);
}

BufferInput SimulatedBuffers::input(unsigned buffer, unsigned devices) const {
  BufferInput in{buffer + 1, buffers_[buffer].view.get(), {}};
  const auto& pulled = buffers_[buffer].pulled;
  for (unsigned d = 0; d < devices; ++d) in.pulled.push_back(d < pulled.size() ? pulled[d].recent() : RangeSet{});
  return in;
}

buffer::PullHistory& SimulatedBuffers::pulledFrom(unsigned buffer, unsigned device) {
  auto& pulled = buffers_[buffer].pulled;
  if (pulled.size() <= device) pulled.resize(device + 1);
  return pulled[device];
}

void SimulatedBuffers::apply(const LaunchPlan& plan) {
  for (const auto& s : plan.staging) {
    buffers_[s.buffer].directory->addCopy(RangeSet{s.range}, kHost, 0);
    pulledFrom(s.buffer, s.from).pulled(s.range);
  }
  for (const auto& m : plan.moves) {
    buffers_[m.buffer].directory->addCopy(RangeSet{m.range}, deviceHolder(m.to), 0);
    if (m.route == Route::InDriver) pulledFrom(m.buffer, buffer::deviceOf(m.from)).pulled(m.range);
  }
  for (const auto& sk : plan.subKernels())
    for (const auto& use : sk.uses) {
      buffers_[use.buffer].directory->setOnly(use.published, deviceHolder(sk.device), 0);
      if (!use.published.empty()) pulledFrom(use.buffer, sk.device).written();
    }
  for (const auto& m : plan.merges()) buffers_[m.buffer].directory->setOnly(m.region, kHost, 0);
}

void SimulatedBuffers::hostWrite(unsigned buffer, ByteRange range) {
  buffers_[buffer].directory->setOnly(RangeSet{range}, kHost, 0);
}

} // namespace clsplit::planner
