// clsplit-plan: `clsplit plan` (planner/cli/PlanCommand.h) as its own program, like
// clsplit-regions, so that the launcher never has Clang in its global symbol scope.
#include "planner/cli/PlanCommand.h"

#include <iostream>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return clsplit::planner::runPlanCommand(args, std::cout, std::cerr);
}
