// Which preprocessor conditions may choose another branch on another vendor.
#include "analysis/frontend/VendorConditionals.h"

#include <catch2/catch.hpp>

using namespace clsplit::analysis::frontend;

TEST_CASE("condition identifiers leave out literals, numbers, comments and defined", "[frontend][conditionals]") {
  using V = std::vector<std::string>;
  CHECK(conditionIdentifiers("CLASS == 'S' && defined(USE_X) // cl_khr_fp64\nNEXT") == V{"CLASS", "USE_X"});
  CHECK(conditionIdentifiers("0x1F + 1e5 > N /* __GPU__ */ || \"s\"") == V{"N"});
  CHECK(conditionIdentifiers("A \\\n || B") == V{"A", "B"});
  CHECK(conditionIdentifiers("0").empty());
}

TEST_CASE("the macros a skipped block (un)defines", "[frontend][conditionals]") {
  using V = std::vector<std::string>;
  CHECK(directiveMacroNames("#define A 1\n  #  undef B\n#definedX\n#include <x>\nint C;\n#define D(x) x\n") ==
        V{"A", "B", "D"});
  CHECK(directiveMacroNames("# define\tTAB\n#define 1BAD\n").size() == 1);
  CHECK(directiveMacroNames("").empty());
}

TEST_CASE("vendors predefine names of the reserved kinds only", "[frontend][conditionals]") {
  CHECK(mayBeVendorMacro("__OPENCL_VERSION__"));
  CHECK(mayBeVendorMacro("__NV_CL_C_VERSION"));
  CHECK(mayBeVendorMacro("_GPU"));
  CHECK(mayBeVendorMacro("cl_khr_fp64"));
  CHECK(mayBeVendorMacro("CL_VERSION_2_0"));
  CHECK(mayBeVendorMacro("FP_FAST_FMAF"));
  CHECK_FALSE(mayBeVendorMacro("USE_CPU"));
  CHECK_FALSE(mayBeVendorMacro("CLASS"));
  CHECK_FALSE(mayBeVendorMacro("DEBUG"));
}
