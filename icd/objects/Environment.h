// What the objects take from the runtime above them, without naming it: the settings, the real
// vendors and the selected devices, the partitioner, whether commands are timed, and spans of
// host work for the trace. icd/runtime/ implements it and hands it over (environment() asks it
// of the runtime on first use); objects never include icd/runtime/.
#pragma once

#include "device/Vendors.h"
#include "icd/config/Settings.h"
#include "partitioner/Partitioner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clsplit::icd {

// One selected real device. Slots are numbered 0..n-1 in selection order.
struct DeviceSlot {
  unsigned slot = 0;
  const device::RealDevice* device = nullptr;
  unsigned platform = 0; // real platform index (devices of one platform share a real context)
};

class Environment {
public:
  virtual const Settings& settings() const = 0;
  virtual const device::Vendors& vendors() const = 0;
  virtual const std::vector<DeviceSlot>& slots() const = 0;
  // Real platforms that have at least one selected device.
  virtual std::vector<unsigned> platformsInUse() const = 0;
  virtual partition::Partitioner& partitioner() = 0;
  // Whether every real command needs an event of its own for clsplit's sake (report, trace).
  virtual bool commandsTimed() = 0;
  // Host work of [startNs, endNs) (device::hostNowNs) for the trace; tracing() says whether
  // there is one (spans cost nothing otherwise).
  virtual bool tracing() const = 0;
  virtual void hostSpan(const char* name, uint64_t startNs, uint64_t endNs) = 0;

protected:
  ~Environment() = default;
};

// The runtime's, made on first use (the ICD's first call makes it in any case).
Environment& environment();
// How environment() gets it: set by icd/runtime/ when the library loads.
void setEnvironmentSource(Environment& (*source)());

// A span of the objects' host work in the trace (the runtime's HostSpan, seen from below).
class EnvironmentSpan {
public:
  explicit EnvironmentSpan(const char* name);
  ~EnvironmentSpan();
  EnvironmentSpan(const EnvironmentSpan&) = delete;
  EnvironmentSpan& operator=(const EnvironmentSpan&) = delete;

private:
  const char* name_;
  uint64_t start_ = 0;
};

} // namespace clsplit::icd
