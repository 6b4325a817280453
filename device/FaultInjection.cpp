// The fault rules and their counters.
#include "device/FaultInjection.h"

#include "device/RealCall.h"
#include "support/Log.h"

#include <cstdlib>
#include <mutex>
#include <sstream>

namespace clsplit::device {

namespace {

struct Rule {
  std::string call;
  cl_device_id device = nullptr;
  uint64_t nth = 1;
  bool onward = false;
  uint64_t seen = 0;
};

std::mutex mutex;
std::vector<Rule> rules;

cl_device_id deviceOfQueue(const void* queue) {
  cl_device_id device = nullptr;
  auto q = static_cast<cl_command_queue>(const_cast<void*>(queue));
  if (dispatchOf(q).clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) != CL_SUCCESS)
    return nullptr;
  return device;
}

} // namespace

namespace detail {

std::atomic<bool> faultsEnabled{false};

bool injectFault(const char* call, const void* queue) {
  cl_device_id device = deviceOfQueue(queue);
  std::lock_guard lock(mutex);
  for (auto& r : rules) {
    if (r.call != call || r.device != device) continue;
    ++r.seen;
    if (r.seen == r.nth || (r.onward && r.seen > r.nth)) {
      log().warn("test fault: {} fails (call {} on that device)", call, r.seen);
      return true;
    }
  }
  return false;
}

} // namespace detail

bool configureFaults(const std::string& spec, const std::vector<cl_device_id>& devices, std::string* error) {
  std::vector<Rule> parsed;
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    Rule r;
    auto at = item.find('@'), colon = item.find(':');
    if (at == std::string::npos || colon == std::string::npos || colon < at) {
      if (error) *error = "expected CALL@DEVICE:N[+], got '" + item + "'";
      return false;
    }
    r.call = item.substr(0, at);
    char* end = nullptr;
    unsigned long index = std::strtoul(item.c_str() + at + 1, &end, 10);
    if (end != item.c_str() + colon || index >= devices.size()) {
      if (error) *error = "no device " + item.substr(at + 1, colon - at - 1) + " in '" + item + "'";
      return false;
    }
    r.device = devices[index];
    std::string count = item.substr(colon + 1);
    if (!count.empty() && count.back() == '+') {
      r.onward = true;
      count.pop_back();
    }
    r.nth = std::strtoull(count.c_str(), &end, 10);
    if (count.empty() || *end || r.nth == 0) {
      if (error) *error = "bad call count in '" + item + "'";
      return false;
    }
    if (r.call != "clEnqueueNDRangeKernel" && r.call != "clEnqueueReadBuffer" && r.call != "clEnqueueWriteBuffer" &&
        r.call != "clEnqueueCopyBuffer") {
      if (error) *error = "cannot inject faults into " + r.call;
      return false;
    }
    parsed.push_back(std::move(r));
  }
  std::lock_guard lock(mutex);
  rules = std::move(parsed);
  detail::faultsEnabled = !rules.empty();
  return true;
}

} // namespace clsplit::device
