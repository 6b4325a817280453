// Build-option parsing: what clsplit honours, what it ignores, and that it never fails.
#include "analysis/frontend/BuildOptions.h"

#include <catch2/catch.hpp>

using namespace clsplit::analysis::frontend;

TEST_CASE("option words split like a shell", "[frontend][options]") {
  auto words = splitOptionWords(R"(-DA=1  -I "/path with space" -DS='x y' -DQ=\"q\")");
  REQUIRE(words.size() == 5);
  CHECK(words[0] == "-DA=1");
  CHECK(words[1] == "-I");
  CHECK(words[2] == "/path with space");
  CHECK(words[3] == "-DS=x y");
  CHECK(words[4] == "-DQ=\"q\"");
  CHECK(splitOptionWords("   ").empty());
}

TEST_CASE("macros, includes, standard and flags are classified", "[frontend][options]") {
  BuildOptions o =
      parseBuildOptions("-D N=4 -DM -UOLD -I inc -Iinc2 -cl-std=CL2.0 -cl-fast-relaxed-math -cl-mad-enable -w "
                        "-Werror -cl-nv-verbose -cl-nv-maxrregcount=32 -O3 -cl-kernel-arg-info -cl-opt-disable");
  REQUIRE(o.macros.size() == 3);
  CHECK(o.macros[0].definition == "N=4");
  CHECK_FALSE(o.macros[0].undefine);
  CHECK(o.macros[1].definition == "M");
  CHECK(o.macros[2].definition == "OLD");
  CHECK(o.macros[2].undefine);
  CHECK(o.includeDirs == std::vector<std::string>{"inc", "inc2"});
  CHECK(o.clStd == 200);
  CHECK(o.effectiveVersion() == 200);
  CHECK(o.semanticFlags == std::vector<std::string>{"-cl-fast-relaxed-math", "-cl-mad-enable"});
  CHECK(o.suppressWarnings);
  CHECK(o.warningsAsErrors);
  CHECK(o.optimizationDisabled);
  CHECK(o.ignored ==
        std::vector<std::string>{"-cl-nv-verbose", "-cl-nv-maxrregcount=32", "-O3", "-cl-kernel-arg-info"});
}

TEST_CASE("malformed options are ignored, not fatal", "[frontend][options]") {
  BuildOptions o = parseBuildOptions("-D -D9bad=1 -cl-std=CL9.9 -I");
  CHECK(o.macros.empty());
  CHECK(o.includeDirs.empty());
  CHECK(o.clStd == 0);
  CHECK(o.effectiveVersion() == 120);
  CHECK_FALSE(o.ignored.empty());
}
