// CLSPLIT_TRACE: a Chrome trace-event timeline (opens in Perfetto) of what clsplit did - one
// track per device for sub-kernels, one per device and transfer direction, one for clsplit's
// host work (analysis, planning) - all on the host clock. Device commands are recorded with
// their fences and resolved to times when the file is written at exit.
#pragma once

#include "buffer-manager/storage/BufferStorage.h"
#include "device/Fence.h"

#include <mutex>
#include <string>
#include <vector>

namespace clsplit::icd::runtime {

class Trace {
public:
  // The active trace, or nullptr when CLSPLIT_TRACE is not set.
  static Trace* active();

  void hostSpan(const std::string& name, uint64_t startNs, uint64_t endNs, std::string args = {});
  void subKernel(unsigned slot, const std::string& kernel, uint64_t groupBegin, uint64_t groupEnd,
                 const device::FenceRef& fence);
  void transfers(const buffer::TransferLog& log);

  // The JSON document (device times resolved; waits for unfinished commands).
  std::string json();

private:
  struct Record {
    int track; // see trackName()
    std::string name;
    std::string args;      // JSON object body, without braces
    bool onDevice = false; // device commands: timed when they complete
    uint64_t startNs = 0, endNs = 0;
  };
  void addDeviceRecord(int track, std::string name, std::string args, const device::FenceRef& fence);
  std::string trackName(int track) const;
  std::mutex mutex_;
  std::vector<Record> records_;
};

// Measures a span of clsplit's host work into the trace (no cost without CLSPLIT_TRACE).
class HostSpan {
public:
  explicit HostSpan(const char* name);
  ~HostSpan();
  void setArgs(std::string args) { args_ = std::move(args); }

private:
  const char* name_;
  uint64_t start_ = 0;
  std::string args_;
};

} // namespace clsplit::icd::runtime
