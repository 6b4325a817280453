// The analyzer's own canonicalisation of a copy of the front end's IR: loops rotated (trip
// counts are then exact for every block of the body), invariant loads hoisted, induction
// variables simplified, so that ScalarEvolution describes as many accesses as possible.
#pragma once

#include <memory>

namespace llvm {
class Module;
} // namespace llvm

namespace clsplit::analysis::analyzer {

std::unique_ptr<llvm::Module> prepareForAnalysis(const llvm::Module& module);

} // namespace clsplit::analysis::analyzer
