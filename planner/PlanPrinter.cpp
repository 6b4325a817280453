// describe(): plans as text.
#include "planner/PlanPrinter.h"

#include <sstream>

namespace clsplit::planner {

std::string describeRanges(const RangeSet& ranges, size_t maxRanges) {
  if (ranges.empty()) return "-";
  if (ranges.count() <= maxRanges) return ranges.str();
  std::ostringstream out;
  const ByteRange hull = ranges.hull();
  out << ranges.count() << " ranges, " << ranges.bytes() << " B in [" << hull.lo << "," << hull.hi << ")";
  return out.str();
}

std::string describe(const LaunchPlan& plan, const std::vector<std::string>& bufferNames) {
  auto name = [&](unsigned b) { return b < bufferNames.size() ? bufferNames[b] : "buffer " + std::to_string(b); };
  auto holder = [](Holder h) {
    return h == buffer::kHost ? std::string("host") : "device " + std::to_string(buffer::deviceOf(h));
  };
  std::ostringstream out;
  out << "split along dimension " << plan.dim << ", groups [";
  for (size_t d = 0; d < plan.groups.size(); ++d) out << (d ? ", " : "") << plan.groups[d];
  out << "]" << (plan.split() ? "" : " (whole)") << (plan.slicing->replicated ? ", replicated" : "")
      << (plan.remapped ? ", remapped" : "") << (plan.overlap ? ", moves on transfer queues" : "") << "\n";
  if (plan.fallback) out << "  runs whole: " << *plan.fallback << "\n";
  for (const auto& s : plan.staging)
    out << "  stage   " << name(s.buffer) << " [" << s.range.lo << "," << s.range.hi << ") device " << s.from
        << " -> host\n";
  for (const auto& m : plan.moves) {
    out << "  move    " << name(m.buffer) << " [" << m.range.lo << "," << m.range.hi << ") " << holder(m.from)
        << " -> device " << m.to;
    if (m.route == Route::InDriver) out << " (in the driver)";
    if (m.route == Route::ThroughHost) out << " (through host memory)";
    out << "\n";
  }
  for (const auto& sk : plan.subKernels()) {
    out << "  device " << sk.device << ": groups [" << sk.slice.groupBegin << "," << sk.slice.groupEnd << "), offset ("
        << sk.offset[0] << "," << sk.offset[1] << "," << sk.offset[2] << "), size (" << sk.global[0] << ","
        << sk.global[1] << "," << sk.global[2] << ")\n";
    for (const auto& u : sk.uses) {
      out << "    " << name(u.buffer) << ": reads " << describeRanges(u.read) << ", writes " << describeRanges(u.write);
      if (!u.atomic.empty()) out << ", atomics " << describeRanges(u.atomic);
      out << "; holds alone after: " << describeRanges(u.published) << "\n";
    }
    for (const auto& p : sk.pieces) {
      out << "    " << (p.boundary ? "boundary" : "interior") << " groups [" << p.slice.groupBegin << ","
          << p.slice.groupEnd << ")";
      for (const auto& u : p.uses)
        if (!u.write.empty()) out << ", writes " << name(u.buffer) << " " << describeRanges(u.write);
      out << "\n";
    }
  }
  for (const auto& m : plan.merges())
    out << "  merge   " << name(m.buffer) << " " << describeRanges(m.region) << " on the host\n";
  out << "  moved: " << plan.movedBytes() << " B\n";
  return out.str();
}

} // namespace clsplit::planner
