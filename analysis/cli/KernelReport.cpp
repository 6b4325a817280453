// Kernel verdicts in words: shared by `clsplit regions --symbolic` and the hint dumps.
#include "analysis/cli/KernelReport.h"

#include <ostream>
#include <sstream>

namespace clsplit::analysis {

std::string argNameOf(const KernelAnalysis& k, unsigned i) {
  return i < k.args.size() && !k.args[i].name.empty() ? k.args[i].name : "arg" + std::to_string(i);
}

void describeKernel(std::ostream& out, const KernelAnalysis& k) {
  out << "kernel " << k.name << "(";
  for (size_t i = 0; i < k.args.size(); ++i) out << (i ? ", " : "") << argNameOf(k, static_cast<unsigned>(i));
  out << ")\n";
  if (k.unsplittableReason) out << "  unsplittable: " << *k.unsplittableReason << "\n";
  std::string text = toString(k.regions, [&](unsigned i) { return argNameOf(k, i); });
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) out << "  " << line << "\n";
  if (k.regions.statements.empty()) out << "  (no buffer accesses)\n";
  for (const auto& d : k.imprecisions)
    out << "  note" << (d.where.line ? " (line " + std::to_string(d.where.line) + ")" : std::string()) << ": "
        << d.message << "\n";
}

std::string hintsDump(const ProgramAnalysis& analysis, std::string_view programHash, std::string_view buildOptions) {
  std::ostringstream out;
  size_t whole = 0;
  for (const auto& k : analysis.kernels) whole += k.unsplittableReason || !k.partitionReady ? 1 : 0;
  out << "program " << programHash << "\n"
      << "build options: \"" << buildOptions << "\"\n"
      << "source: " << programHash << ".cl (line numbers below refer to it)\n"
      << "kernels: " << analysis.kernels.size() << " (" << analysis.kernels.size() - whole << " split-ready, " << whole
      << " run whole)\n";
  if (whole > 0)
    out << "hint file: put the pragmas a kernel needs into <CLSPLIT_HINTS dir>/" << programHash
        << ".hints\n  under a line `[kernel NAME]` (or into <CLSPLIT_HINTS dir>/NAME.hints), e.g.\n"
        << "    [kernel " <<
        [&] {
          for (const auto& k : analysis.kernels)
            if (k.unsplittableReason || !k.partitionReady) return k.name;
          return std::string();
        }()
        << "]\n    #pragma opencl_increasing_buffer INDEX_BUFFER\n"
        << "  (syntax and the available pragmas: docs/hints.md)\n";
  for (const auto& k : analysis.kernels) {
    out << "\n";
    if (!k.partitionReady && !k.unsplittableReason)
      out << "kernel " << k.name << ": not rewritten for partial launches: runs whole\n";
    describeKernel(out, k);
  }
  return out.str();
}

} // namespace clsplit::analysis
