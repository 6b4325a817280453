// Trace recording and the trace-event JSON writer.
#include "icd/runtime/Trace.h"

#include "device/Clock.h"
#include "device/HostExecutor.h"
#include "icd/runtime/Runtime.h"
#include "support/Json.h"
#include "support/Log.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace clsplit::icd::runtime {

namespace {

// Tracks: 0 = clsplit host work; for device slot s: 1 + 4s kernels, 2 + 4s host->device,
// 3 + 4s device->host (from s), 4 + 4s device->device (into s).
constexpr int kHostTrack = 0;
int kernelTrack(unsigned slot) { return 1 + 4 * static_cast<int>(slot); }
int transferTrack(const buffer::TransferRecord& t) {
  switch (t.kind) {
  case buffer::TransferKind::HostToDevice:
    return 2 + 4 * t.to;
  case buffer::TransferKind::DeviceToHost:
    return 3 + 4 * t.from;
  case buffer::TransferKind::DeviceToDevice:
    return 4 + 4 * t.to;
  }
  return kHostTrack;
}

Trace* makeTrace() {
  const std::string& path = Runtime::get().settings().value("CLSPLIT_TRACE");
  if (path.empty()) return nullptr;
  static Trace* trace = new Trace; // never destroyed: nothing of it may run after the vendors
  std::atexit([] {
    const std::string& path = Runtime::get().settings().value("CLSPLIT_TRACE");
    std::ofstream out(path);
    out << trace->json();
    if (!out) log().error("cannot write the trace to {}", path);
  });
  return trace;
}

} // namespace

Trace* Trace::active() {
  static Trace* trace = makeTrace();
  return trace;
}

std::string Trace::trackName(int track) const {
  if (track == kHostTrack) return "clsplit host (analysis, planning)";
  const auto& slots = Runtime::get().slots();
  unsigned slot = static_cast<unsigned>((track - 1) / 4);
  std::string device = slot < slots.size() ? slots[slot].device->name : "?";
  std::string prefix = "device " + std::to_string(slot) + " " + device;
  switch ((track - 1) % 4) {
  case 0:
    return prefix + ": kernels";
  case 1:
    return prefix + ": host->device";
  case 2:
    return prefix + ": device->host";
  default:
    return prefix + ": device->device (in)";
  }
}

void Trace::hostSpan(const std::string& name, uint64_t startNs, uint64_t endNs, std::string args) {
  std::lock_guard lock(mutex_);
  records_.push_back({kHostTrack, name, std::move(args), false, startNs, endNs});
}

void Trace::subKernel(unsigned slot, const std::string& kernel, uint64_t groupBegin, uint64_t groupEnd,
                      const device::FenceRef& fence) {
  std::ostringstream args;
  args << "\"groups\": [" << groupBegin << ", " << groupEnd << "]";
  addDeviceRecord(kernelTrack(slot), kernel, args.str(), fence);
}

void Trace::transfers(const buffer::TransferLog& log) {
  for (const auto& t : log) {
    std::ostringstream args;
    args << "\"bytes\": " << t.bytes << ", \"from\": \"" << (t.from < 0 ? "host" : "device " + std::to_string(t.from))
         << "\", \"to\": \"" << (t.to < 0 ? "host" : "device " + std::to_string(t.to))
         << "\", \"producer_launch\": " << t.producer;
    addDeviceRecord(transferTrack(t), std::to_string(t.bytes) + " B", args.str(), t.fence);
  }
}

// The device times are read when the command completes (from the vendor's callback): at exit,
// when the file is written, a vendor may already have torn down its state.
void Trace::addDeviceRecord(int track, std::string name, std::string args, const device::FenceRef& fence) {
  if (!fence) return;
  size_t index;
  {
    std::lock_guard lock(mutex_);
    index = records_.size();
    records_.push_back({track, std::move(name), std::move(args), true});
  }
  fence->onComplete([this, index, fence](cl_int) {
    device::runInBackground([this, index, fence] { // not on the vendor's callback thread
      uint64_t start = UINT64_MAX, end = 0;
      if (!fence->profile(start, end)) return; // no timing (e.g. nothing was needed)
      std::lock_guard lock(mutex_);
      records_[index].startNs = start;
      records_[index].endNs = end;
    });
  });
}

std::string Trace::json() {
  std::vector<Record> records;
  {
    std::lock_guard lock(mutex_);
    records = records_;
  }
  std::ostringstream out;
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"clsplit\"}}";
  std::vector<int> tracks;
  uint64_t origin = UINT64_MAX;
  for (auto& r : records) {
    if (r.onDevice && !r.endNs) continue; // not timed (still running at exit, or no work)
    origin = std::min(origin, r.startNs);
    if (std::find(tracks.begin(), tracks.end(), r.track) == tracks.end()) tracks.push_back(r.track);
  }
  std::sort(tracks.begin(), tracks.end());
  for (int t : tracks)
    out << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": " << t
        << ", \"args\": {\"name\": " << jsonString(trackName(t)) << "}}"
        << ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": " << t
        << ", \"args\": {\"sort_index\": " << t << "}}";
  char number[64];
  for (const auto& r : records) {
    if (r.onDevice && !r.endNs) continue;
    std::snprintf(number, sizeof number, "%.3f, \"dur\": %.3f", (r.startNs - origin) / 1e3,
                  (r.endNs >= r.startNs ? r.endNs - r.startNs : 0) / 1e3);
    out << ",\n{\"name\": " << jsonString(r.name) << ", \"ph\": \"X\", \"pid\": 1, \"tid\": " << r.track
        << ", \"ts\": " << number << ", \"args\": {" << r.args << "}}";
  }
  // The host-clock time of ts 0 (steady clock, ns): lines the trace up with other processes.
  out << "\n], \"otherData\": {\"clsplit_origin_ns\": " << (origin == UINT64_MAX ? 0 : origin) << "}}\n";
  return out.str();
}

HostSpan::HostSpan(const char* name) : name_(name) {
  if (Trace::active()) start_ = device::hostNowNs();
}

HostSpan::~HostSpan() {
  if (auto* trace = Trace::active()) trace->hostSpan(name_, start_, device::hostNowNs(), std::move(args_));
}

} // namespace clsplit::icd::runtime
