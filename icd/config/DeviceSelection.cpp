// CLSPLIT_DEVICES parsing.
#include "icd/config/DeviceSelection.h"

#include <algorithm>
#include <sstream>

namespace clsplit::icd {

std::vector<unsigned> selectDevices(const std::string& spec, const std::vector<device::RealDevice>& devices,
                                    std::vector<std::string>& problems) {
  std::vector<unsigned> chosen;
  if (spec.empty()) {
    // A real GPU: simulators such as Oclgrind claim every type at once and do not count.
    for (const auto& d : devices)
      if ((d.type & CL_DEVICE_TYPE_GPU) && !(d.type & CL_DEVICE_TYPE_CPU)) chosen.push_back(d.index);
    if (chosen.empty())
      for (const auto& d : devices) chosen.push_back(d.index);
    return chosen;
  }
  if (spec == "all") {
    for (const auto& d : devices) chosen.push_back(d.index);
    return chosen;
  }
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      unsigned long index = std::stoul(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
      if (index >= devices.size()) {
        problems.push_back("CLSPLIT_DEVICES: no device " + item + " (see clsplit --list-devices)");
        continue;
      }
      // A device listed twice is selected twice: two slots (each with its own queues and its
      // own copy of every buffer) on one device.
      chosen.push_back(static_cast<unsigned>(index));
    } catch (const std::exception&) {
      problems.push_back("CLSPLIT_DEVICES: '" + item + "' is not a device index");
    }
  }
  return chosen;
}

} // namespace clsplit::icd
