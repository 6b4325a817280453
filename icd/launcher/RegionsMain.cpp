// `clsplit-regions` (run as `clsplit regions ...`): a kernel's read/write regions as JSON.
#include "analysis/cli/RegionsCommand.h"

#include <iostream>

int main(int argc, char** argv) {
  return clsplit::analysis::runRegionsCommand({argv + 1, argv + argc}, std::cout, std::cerr);
}
