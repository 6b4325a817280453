// `clsplit plan`: a sequence of launches planned and printed without devices; usage errors.
#include "planner/cli/PlanCommand.h"
#include "tests/unit/planner/StencilKernels.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

using clsplit::planner::runPlanCommand;

namespace {

std::string programFile() {
  static const std::string path = [] {
    std::string p = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/clsplit-plan-test.cl";
    std::ofstream(p) << clsplit::planner::test::kStencilKernels;
    return p;
  }();
  return path;
}

int plan(std::vector<std::string> args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  args.insert(args.begin(), programFile());
  int status = runPlanCommand(args, o, e);
  out = o.str();
  err = e.str();
  return status;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

} // namespace

TEST_CASE("a Jacobi sequence over three devices: data from the host first, then only halos", "[plan]") {
  std::string out, err;
  REQUIRE(plan({"--devices", "3", "--buffer", "a=4096", "--buffer", "b=4096:undefined", "--launch",
                "stencil gws=1024 lws=64 a=a b=b n=1024", "--launch", "copy gws=1024 lws=64 a=a b=b n=1024", "--repeat",
                "2"},
               out, err) == 0);
  INFO(out << err);
  const size_t third = out.find("launch 3:");
  REQUIRE(third != std::string::npos);
  const std::string first = out.substr(0, out.find("launch 2:")),
                    steady = out.substr(third, out.find("launch 4:") - third);
  CHECK(count(first, "host -> device") == 3); // each device's slice and halo, from the host
  CHECK(count(steady, "stage ") == 4);        // two halos each way across two boundaries
  CHECK(count(steady, "(through host memory)") == 4);
  CHECK(steady.find("moved: 32 B") != std::string::npos);
}

TEST_CASE("one device selected twice copies its halos inside itself", "[plan]") {
  std::string out, err;
  REQUIRE(plan({"--links", "same", "--buffer", "a=4096", "--buffer", "b=4096", "--launch",
                "stencil gws=1024 lws=64 a=a b=b n=1024", "--launch", "copy gws=1024 lws=64 a=a b=b n=1024", "--repeat",
                "2"},
               out, err) == 0);
  const std::string steady = out.substr(out.find("launch 3:"));
  CHECK(count(steady, "(in the driver)") == 2);
  CHECK(count(steady, "stage ") == 0);
}

TEST_CASE("plan: mistakes are usage errors with a reason", "[plan]") {
  std::string out, err;
  CHECK(plan({"--buffer", "a=64", "--launch", "nosuch gws=16 a=a"}, out, err) == 2);
  CHECK(err.find("no kernel nosuch") != std::string::npos);
  CHECK(plan({"--buffer", "a=64", "--buffer", "b=64", "--launch", "stencil gws=16 a=a b=b"}, out, err) == 2);
  CHECK(err.find("no value for argument n") != std::string::npos);
  CHECK(plan({"--buffer", "a=64", "--launch", "stencil gws=16 a=a b=c n=16"}, out, err) == 2);
  CHECK(err.find("no buffer 'c'") != std::string::npos);
  CHECK(plan({"--buffer", "a=64", "--buffer", "b=64", "--launch", "stencil gws=16 lws=5 a=a b=b n=16"}, out, err) == 2);
  CHECK(plan({"--buffer", "a=64", "--buffer", "b=64", "--launch", "stencil gws=16 groups=1 a=a b=b n=16"}, out, err) ==
        2);
  CHECK(err.find("one count per device") != std::string::npos);
}
