// What clsplit returns as a program's binary (CL_PROGRAM_BINARIES) and accepts back
// (clCreateProgramWithBinary): not vendor code, which could not run on every device of a split,
// but the recipe that rebuilds the program - an executable's source and options, a compiled
// object's source, options and embedded headers, a linked program's options and its inputs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clsplit::icd {

// clCompileProgram's embedded headers: (name as the program includes it, source).
using ProgramHeaders = std::vector<std::pair<std::string, std::string>>;

struct ProgramBinary {
  enum class Type { Executable, Object, Linked };
  Type type = Type::Executable;
  std::string source;                // Executable, Object
  std::string options;               // build, compile or link options
  ProgramHeaders headers;            // Object: include name, source
  std::vector<ProgramBinary> inputs; // Linked: objects and libraries

  // A library (linked with -create-library) rather than an executable.
  bool library() const;

  std::string encode() const;
  // Nothing when `data` is not a clsplit binary (or is damaged).
  static std::optional<ProgramBinary> decode(const unsigned char* data, size_t size);
};

} // namespace clsplit::icd
