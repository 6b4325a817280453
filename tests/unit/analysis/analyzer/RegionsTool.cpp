// Developer tool: `clsplit regions` with the test front-end path (compileToIR + analyzer),
// usable before/without the full analyzeProgram facade.
#include "AnalyzeSource.h"

#include "analysis/cli/RegionsCommand.h"

#include <iostream>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return clsplit::analysis::runRegionsCommand(args, std::cout, std::cerr,
                                              clsplit::analysis::testing::analyzeProgramForTests);
}
