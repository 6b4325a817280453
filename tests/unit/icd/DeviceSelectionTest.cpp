// CLSPLIT_DEVICES parsing against a synthetic device list (no OpenCL needed): the default
// (real GPUs, else everything), `all`, index lists in the given order, and every malformed
// item reported without aborting the others.
#include "icd/config/DeviceSelection.h"

#include <catch2/catch.hpp>

using clsplit::device::RealDevice;
using clsplit::icd::selectDevices;

namespace {

RealDevice make(unsigned index, cl_device_type type, std::string name) {
  RealDevice d;
  d.index = index;
  d.type = type;
  d.name = std::move(name);
  return d;
}

// 0: CPU, 1: GPU, 2: a simulator claiming every type (as Oclgrind does), 3: GPU.
std::vector<RealDevice> machine() {
  return {make(0, CL_DEVICE_TYPE_CPU, "cpu"), make(1, CL_DEVICE_TYPE_GPU, "gpu0"),
          make(2, CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT, "sim"),
          make(3, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT, "gpu1")};
}

std::vector<unsigned> pick(const std::string& spec, std::vector<std::string>* problemsOut = nullptr,
                           const std::vector<RealDevice>& devices = machine()) {
  std::vector<std::string> problems;
  auto chosen = selectDevices(spec, devices, problems);
  if (problemsOut)
    *problemsOut = problems;
  else
    CHECK(problems.empty());
  return chosen;
}

} // namespace

TEST_CASE("the default selects the real GPUs, not simulators claiming every type", "[devices]") {
  CHECK(pick("") == std::vector<unsigned>{1, 3});
}

TEST_CASE("the default selects every device when there is no real GPU", "[devices]") {
  std::vector<RealDevice> cpus = {make(0, CL_DEVICE_TYPE_CPU, "a"), make(1, CL_DEVICE_TYPE_CPU, "b"),
                                  make(2, CL_DEVICE_TYPE_ALL & ~CL_DEVICE_TYPE_CUSTOM, "sim")};
  CHECK(pick("", nullptr, cpus) == std::vector<unsigned>{0, 1, 2});
  CHECK(pick("", nullptr, {}).empty());
}

TEST_CASE("all selects every device in index order", "[devices]") {
  CHECK(pick("all") == std::vector<unsigned>{0, 1, 2, 3});
}

TEST_CASE("an index list keeps its order and its repetitions (a device selected twice)", "[devices]") {
  CHECK(pick("2,0") == std::vector<unsigned>{2, 0});
  CHECK(pick("3") == std::vector<unsigned>{3});
  CHECK(pick("1,1,3,1") == std::vector<unsigned>{1, 1, 3, 1});
  CHECK(pick("0,") == std::vector<unsigned>{0});
}

TEST_CASE("malformed and unknown items are reported, the others still selected", "[devices]") {
  std::vector<std::string> problems;
  CHECK(pick("0,7,2", &problems) == std::vector<unsigned>{0, 2});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("no device 7") != std::string::npos);

  CHECK(pick("x,1", &problems) == std::vector<unsigned>{1});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("'x' is not a device index") != std::string::npos);

  CHECK(pick("1x,2", &problems) == std::vector<unsigned>{2});
  CHECK(problems.size() == 1);
  CHECK(pick("1,,2", &problems) == std::vector<unsigned>{1, 2});
  CHECK(problems.size() == 1);
  CHECK(pick("-1", &problems).empty());
  CHECK(problems.size() == 1);
  CHECK(pick("99999999999999999999999", &problems).empty());
  CHECK(problems.size() == 1);
  // Another spelling of `all`: either understood or reported, never silently nothing.
  auto upper = pick("ALL", &problems);
  CHECK((upper.size() == 4 || problems.size() == 1));
}
