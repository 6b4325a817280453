// Kernel names by reading the text (no Clang): a tiny scan over identifiers and attributes.
#include "analysis/frontend/KernelNames.h"

#include <algorithm>
#include <cctype>

namespace clsplit::analysis::frontend {

std::vector<std::string> scanKernelNames(std::string_view source) {
  std::vector<std::string> names;
  auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  {
    constexpr std::string_view keyword = "kernel"; // or __kernel, in source order
    size_t at = 0;
    while ((at = source.find(keyword, at)) != std::string_view::npos) {
      size_t start = (at >= 2 && source.substr(at - 2, 2) == "__") ? at - 2 : at;
      size_t i = at + keyword.size();
      bool whole = (start == 0 || !isIdent(source[start - 1])) && i < source.size() && !isIdent(source[i]);
      at = i;
      if (!whole) continue;
      // `kernel [attributes] void [attributes] name (`: the last identifier before the '(' that
      // is not an attribute's.
      std::string last;
      while (i < source.size()) {
        char c = source[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
          ++i;
        } else if (isIdent(c)) {
          size_t b = i;
          while (i < source.size() && isIdent(source[i])) ++i;
          last = std::string(source.substr(b, i - b));
          if (last == "__attribute__" || last == "__attribute") {
            size_t open = source.find('(', i);
            if (open == std::string_view::npos) break;
            int depth = 0;
            for (i = open; i < source.size(); ++i) {
              if (source[i] == '(')
                ++depth;
              else if (source[i] == ')' && --depth == 0)
                break;
            }
            ++i;
            last.clear();
          }
        } else {
          break;
        }
      }
      if (i < source.size() && source[i] == '(' && !last.empty() && last != "void" &&
          std::find(names.begin(), names.end(), last) == names.end())
        names.push_back(last);
    }
  }
  return names;
}

} // namespace clsplit::analysis::frontend
