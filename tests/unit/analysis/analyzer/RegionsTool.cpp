// Developer tool: `clsplit regions` on its own. By default it goes through analyzeProgram()
// (the production path); with CLSPLIT_REGIONS_TOOL_DIRECT=1 through compileToIR + the
// analyzer only (no transformer, no cache).
#include "AnalyzeSource.h"

#include "analysis/cli/RegionsCommand.h"

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (const char* direct = std::getenv("CLSPLIT_REGIONS_TOOL_DIRECT"); direct && *direct == '1')
    return clsplit::analysis::runRegionsCommand(args, std::cout, std::cerr,
                                                clsplit::analysis::testing::analyzeProgramForTests);
  return clsplit::analysis::runRegionsCommand(args, std::cout, std::cerr);
}
