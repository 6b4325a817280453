// The pass-through decision (icd/config/PassThrough.h): one device running everything and no
// setting asking for clsplit's own work hands the program the real platform; anything else
// keeps clsplit's layer, and the reason names what kept it.
#include "icd/config/PassThrough.h"

#include <catch2/catch.hpp>

using clsplit::icd::choosePassThrough;
using clsplit::icd::Settings;

namespace {

Settings with(std::map<std::string, std::string> environment) { return Settings::from(environment, ""); }

} // namespace

TEST_CASE("one device and default settings pass through", "[passthrough]") {
  auto choice = choosePassThrough(with({}), 1);
  CHECK(choice.passThrough);
  CHECK(choice.reason == "one device runs every kernel");
}

TEST_CASE("several devices or none keep the layer", "[passthrough]") {
  CHECK_FALSE(choosePassThrough(with({}), 2).passThrough);
  CHECK(choosePassThrough(with({}), 2).reason == "kernels run on 2 devices");
  CHECK_FALSE(choosePassThrough(with({}), 0).passThrough);
  // A device whose platform has others passes through too: the program then gets a platform
  // that lists it alone (integration.passthrough checks what a program sees).
}

TEST_CASE("settings that shape splitting do not matter on one device", "[passthrough]") {
  auto choice = choosePassThrough(with({{"CLSPLIT_STRATEGY", "single"},
                                        {"CLSPLIT_DEVICES", "0"},
                                        {"CLSPLIT_LOG", "info"},
                                        {"CLSPLIT_WINDOWS", "always"},
                                        {"CLSPLIT_CACHE_DIR", "off"}}),
                                  1);
  CHECK(choice.passThrough);
}

TEST_CASE("settings asking for clsplit's own work keep the layer, named", "[passthrough]") {
  for (const char* name : {"CLSPLIT_REPORT", "CLSPLIT_TRACE", "CLSPLIT_PROFILE", "CLSPLIT_HINTS_DUMP",
                           "CLSPLIT_TEST_FAULTS"}) {
    auto choice = choosePassThrough(with({{name, "x"}}), 1);
    CHECK_FALSE(choice.passThrough);
    CHECK(choice.reason == std::string(name) + " is set");
  }
  CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_SUMMARY", "1"}}), 1).passThrough);
  CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_DEVICE_TYPE", "gpu"}}), 1).passThrough);
  CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_OPENCL_VERSION", "1.2"}}), 1).passThrough);
  CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_SUBMIT_THREAD", "on"}}), 1).passThrough);
  CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_HOST_PTR_SYNC", "2"}}), 1).passThrough);
  // Level 0 is what the vendor does anyway; eventless commands and eager uploads are the layer's.
  CHECK(choosePassThrough(with({{"CLSPLIT_HOST_PTR_SYNC", "0"}}), 1).passThrough);
  CHECK(choosePassThrough(with({{"CLSPLIT_EVENTLESS", "0"}, {"CLSPLIT_EAGER_UPLOAD", "0"}}), 1).passThrough);
  // A setting given its default value asks for nothing, except host-pointer coherence, which
  // stepping aside would leave to the vendor.
  CHECK(choosePassThrough(with({{"CLSPLIT_SUMMARY", "0"}}), 1).passThrough);
  auto coherent = choosePassThrough(with({{"CLSPLIT_HOST_PTR_SYNC", "1"}}), 1);
  CHECK_FALSE(coherent.passThrough);
  CHECK(coherent.reason == "CLSPLIT_HOST_PTR_SYNC is given");
}

TEST_CASE("CLSPLIT_PASSTHROUGH=off keeps the layer on one device", "[passthrough]") {
  auto choice = choosePassThrough(with({{"CLSPLIT_PASSTHROUGH", "off"}}), 1);
  CHECK_FALSE(choice.passThrough);
  CHECK(choice.reason == "CLSPLIT_PASSTHROUGH=off");
  CHECK(choice.warning.empty());
  for (const char* off : {"0", "OFF", "false", "No"})
    CHECK_FALSE(choosePassThrough(with({{"CLSPLIT_PASSTHROUGH", off}}), 1).passThrough);
  for (const char* on : {"auto", "on", "1", "TRUE"})
    CHECK(choosePassThrough(with({{"CLSPLIT_PASSTHROUGH", on}}), 1).passThrough);
}

TEST_CASE("an unknown CLSPLIT_PASSTHROUGH keeps the layer and says so", "[passthrough]") {
  auto choice = choosePassThrough(with({{"CLSPLIT_PASSTHROUGH", "of"}}), 1);
  CHECK_FALSE(choice.passThrough);
  CHECK(choice.warning == "CLSPLIT_PASSTHROUGH=of is not auto or off: clsplit keeps its layer");
}
